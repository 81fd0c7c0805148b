package handlers

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/store"
)

// maxPixPerNotification bounds one notification body.
const maxPixPerNotification = 100

var (
	endToEndIDPattern = regexp.MustCompile(`^[A-Za-z0-9]{32}$`)
	pspTxIDPattern    = regexp.MustCompile(`^[A-Za-z0-9]{1,35}$`)
	valorPattern      = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{2}$`)
)

// PSP receives the payment service provider's settlement notifications.
type PSP struct {
	Store *store.Store
	// Token is the shared secret the PSP sends as a Bearer token; empty
	// refuses every notification.
	Token string
}

type pixResultJSON struct {
	EndToEndID string `json:"endToEndId"`
	Outcome    string `json:"outcome"`
	Duplicate  bool   `json:"duplicate"`
}

// Notify handles POST /psp/pix: the Banco Central Pix webhook body
// {"pix":[{"endToEndId","txid","valor","horario",...}]}.
func (p *PSP) Notify(c *fiber.Ctx) error {
	o, apiErr := p.authorizedBody(c)
	if apiErr != nil {
		return apiErr
	}
	var items []json.RawMessage
	if err := json.Unmarshal(o.fields["pix"], &items); err != nil || len(items) == 0 {
		return InvalidParam("parameter_invalid", "pix", "pix must be a non-empty array of transfers.")
	}
	if len(items) > maxPixPerNotification {
		return InvalidParam("parameter_invalid", "pix", "At most %d transfers per notification.", maxPixPerNotification)
	}
	notes := make([]*store.PixNotification, 0, len(items))
	for i, raw := range items {
		n, apiErr := parsePix(raw, i)
		if apiErr != nil {
			return apiErr
		}
		notes = append(notes, n)
	}
	results := make([]pixResultJSON, 0, len(notes))
	for _, n := range notes {
		if err := p.Store.RecordPixNotification(c.UserContext(), n); err != nil {
			return err
		}
		results = append(results, pixResultJSON{EndToEndID: n.EndToEndID, Outcome: n.Outcome, Duplicate: n.Duplicate})
	}
	return c.JSON(fiber.Map{"received": len(results), "results": results})
}

// authorizedBody checks the PSP's token and decodes its JSON body.
func (p *PSP) authorizedBody(c *fiber.Ctx) (jsonObject, *Error) {
	given, bearer := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	if !bearer || p.Token == "" || subtle.ConstantTimeCompare([]byte(given), []byte(p.Token)) != 1 {
		return jsonObject{}, &Error{Status: http.StatusUnauthorized, Type: TypeAuthentication, Code: "psp_token_invalid",
			Message: "Send the PSP token as 'Authorization: Bearer <token>'."}
	}
	if apiErr := requireJSON(c); apiErr != nil {
		return jsonObject{}, apiErr
	}
	return decodeBody(c.Body())
}

// pspResultJSON answers a dispute or withdrawal notification.
type pspResultJSON struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Status    string `json:"status"`
	Duplicate bool   `json:"duplicate"`
}

var pspReferencePattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// NotifyDispute handles POST /psp/disputes: the PSP reports a PIX MED claim
// as it stands, {"id","endToEndId","reason","status"}. An unknown id opens a
// dispute on the payment the transfer paid; a known one moves to the status
// reported; the same status again changes nothing.
func (p *PSP) NotifyDispute(c *fiber.Ctx) error {
	o, apiErr := p.authorizedBody(c)
	if apiErr != nil {
		return apiErr
	}
	if apiErr := o.rejectUnknown("id", "endToEndId", "reason", "status"); apiErr != nil {
		return apiErr
	}
	var in store.PSPDispute
	for _, f := range []struct {
		name string
		dst  *string
		ok   func(string) bool
		want string
	}{
		{"id", &in.Reference, pspReferencePattern.MatchString, "1 to 64 letters, digits or _ . : -"},
		{"endToEndId", &in.EndToEndID, endToEndIDPattern.MatchString, "32 letters and digits"},
		{"reason", &in.Reason, func(s string) bool { return slices.Contains(store.DisputeReasons, s) }, fmt.Sprint(store.DisputeReasons)},
		{"status", &in.Status, func(s string) bool { return slices.Contains(store.DisputeStatuses, s) }, fmt.Sprint(store.DisputeStatuses)},
	} {
		if !o.present(f.name) {
			return o.missing(f.name)
		}
		v, apiErr := o.str(f.name, 64)
		if apiErr != nil {
			return apiErr
		}
		if !f.ok(v) {
			return InvalidParam("parameter_invalid", f.name, "%s must be %s.", f.name, f.want)
		}
		*f.dst = v
	}
	d, duplicate, err := p.Store.ApplyPSPDispute(c.UserContext(), in)
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: "resource_missing", Param: "endToEndId",
			Message: "No payment was paid by this endToEndId."}
	case errors.As(err, &invalid) && invalid.Object == "dispute":
		return disputeErr(err, in.Reference)
	case err != nil:
		return openDisputeErr(err, in.EndToEndID)
	}
	return c.JSON(pspResultJSON{ID: d.ID, Object: "dispute", Status: d.Status, Duplicate: duplicate})
}

// NotifyWithdrawal handles POST /psp/withdrawals: the PSP reports how a
// payout ended, {"id","status","endToEndId","failure_reason"}.
func (p *PSP) NotifyWithdrawal(c *fiber.Ctx) error {
	o, apiErr := p.authorizedBody(c)
	if apiErr != nil {
		return apiErr
	}
	if apiErr := o.rejectUnknown("id", "status", "endToEndId", "failure_reason"); apiErr != nil {
		return apiErr
	}
	if !o.present("id") {
		return o.missing("id")
	}
	id, apiErr := o.str("id", 64)
	if apiErr != nil {
		return apiErr
	}
	if !o.present("status") {
		return o.missing("status")
	}
	var res store.WithdrawalResult
	if res.Status, apiErr = o.enum("status", []string{store.WithdrawalCompleted, store.WithdrawalFailed}); apiErr != nil {
		return apiErr
	}
	if o.present("endToEndId") {
		e2e, apiErr := o.str("endToEndId", 32)
		if apiErr != nil {
			return apiErr
		}
		if !endToEndIDPattern.MatchString(e2e) {
			return InvalidParam("parameter_invalid", "endToEndId", "endToEndId must be 32 letters and digits.")
		}
		res.EndToEndID = &e2e
	}
	if o.present("failure_reason") {
		reason, apiErr := o.str("failure_reason", maxFailureReasonLen)
		if apiErr != nil {
			return apiErr
		}
		res.FailureReason = &reason
	}
	if res.Status == store.WithdrawalFailed && res.FailureReason == nil {
		return o.missing("failure_reason")
	}
	w, duplicate, err := p.Store.FinishWithdrawal(c.UserContext(), nil, id, res)
	if err != nil {
		return withdrawalErr(err, id)
	}
	return c.JSON(pspResultJSON{ID: w.ID, Object: "withdrawal", Status: w.Status, Duplicate: duplicate})
}

func parsePix(raw json.RawMessage, i int) (*store.PixNotification, *Error) {
	var item struct {
		EndToEndID string `json:"endToEndId"`
		TxID       string `json:"txid"`
		Valor      string `json:"valor"`
		Horario    string `json:"horario"`
	}
	param := func(name string) string { return fmt.Sprintf("pix[%d].%s", i, name) }
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, InvalidParam("parameter_invalid_type", fmt.Sprintf("pix[%d]", i), "Each transfer must be an object.")
	}
	if !endToEndIDPattern.MatchString(item.EndToEndID) {
		return nil, InvalidParam("parameter_invalid", param("endToEndId"), "endToEndId must be 32 letters and digits.")
	}
	if !pspTxIDPattern.MatchString(item.TxID) {
		return nil, InvalidParam("parameter_invalid", param("txid"), "txid must be 1 to 35 letters and digits.")
	}
	if !valorPattern.MatchString(item.Valor) {
		return nil, InvalidParam("parameter_invalid", param("valor"), "valor must be a decimal string with two places, like \"12.34\".")
	}
	whole, cents, _ := strings.Cut(item.Valor, ".")
	reais, _ := strconv.ParseInt(whole, 10, 64)
	c, _ := strconv.ParseInt(cents, 10, 64)
	n := &store.PixNotification{EndToEndID: item.EndToEndID, TxID: item.TxID, AmountCents: reais*100 + c, Raw: raw}
	if item.Horario != "" {
		t, err := time.Parse(time.RFC3339Nano, item.Horario)
		if err != nil {
			return nil, InvalidParam("parameter_invalid", param("horario"), "horario must be an RFC 3339 timestamp.")
		}
		n.SettledAt = &t
	}
	return n, nil
}
