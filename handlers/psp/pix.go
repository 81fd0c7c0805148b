package psp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/store"
	"payments/web/reply"
)

// MaxPixPerNotification bounds one notification body.
const MaxPixPerNotification = 100

// The fields of a transfer: its txid, and its value in reais with two decimals.
var (
	TxIDPattern  = regexp.MustCompile(`^[A-Za-z0-9]{1,35}$`)
	ValorPattern = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{2}$`)
)

type pixResultJSON struct {
	EndToEndID string `json:"endToEndId"`
	Outcome    string `json:"outcome"`
	Duplicate  bool   `json:"duplicate"`
}

// NotifyPix handles POST /psp/pix: the Banco Central Pix webhook body
// {"pix":[{"endToEndId","txid","valor","horario",...}]}.
func (p *PSP) NotifyPix(c *fiber.Ctx) error {
	// The Banco Central's body has one field; each transfer may carry more
	// of its own (infoPagador, devolucoes ...), read as far as they matter.
	o, apiErr := p.body(c, "pix")
	if apiErr != nil {
		return apiErr
	}
	var items []json.RawMessage
	if err := json.Unmarshal(o.Raw("pix"), &items); err != nil || len(items) == 0 {
		return reply.InvalidParam("parameter_invalid", "pix", "pix must be a non-empty array of transfers.")
	}
	if len(items) > MaxPixPerNotification {
		return reply.InvalidParam("parameter_invalid", "pix", "At most %d transfers per notification.", MaxPixPerNotification)
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

func parsePix(raw json.RawMessage, i int) (*store.PixNotification, *reply.Error) {
	var item struct {
		EndToEndID string `json:"endToEndId"`
		TxID       string `json:"txid"`
		Valor      string `json:"valor"`
		Horario    string `json:"horario"`
	}
	param := func(name string) string { return fmt.Sprintf("pix[%d].%s", i, name) }
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, reply.InvalidParam("parameter_invalid_type", fmt.Sprintf("pix[%d]", i), "Each transfer must be an object.")
	}
	if !EndToEndIDPattern.MatchString(item.EndToEndID) {
		return nil, reply.InvalidParam("parameter_invalid", param("endToEndId"), "endToEndId must be 32 letters and digits.")
	}
	if !TxIDPattern.MatchString(item.TxID) {
		return nil, reply.InvalidParam("parameter_invalid", param("txid"), "txid must be 1 to 35 letters and digits.")
	}
	if !ValorPattern.MatchString(item.Valor) {
		return nil, reply.InvalidParam("parameter_invalid", param("valor"), "valor must be a decimal string with two places, like \"12.34\".")
	}
	whole, cents, _ := strings.Cut(item.Valor, ".")
	reais, _ := strconv.ParseInt(whole, 10, 64)
	c, _ := strconv.ParseInt(cents, 10, 64)
	n := &store.PixNotification{EndToEndID: item.EndToEndID, TxID: item.TxID, AmountCents: reais*100 + c, Raw: raw}
	if item.Horario != "" {
		t, err := time.Parse(time.RFC3339Nano, item.Horario)
		if err != nil {
			return nil, reply.InvalidParam("parameter_invalid", param("horario"), "horario must be an RFC 3339 timestamp.")
		}
		n.SettledAt = &t
	}
	return n, nil
}
