package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// PixQRCodes handles GET /dashboard/pix_qr_codes: the account's static
// codes, newest first, with what each brought in.
func (d *Dashboard) PixQRCodes(c *fiber.Ctx) error {
	page, hasMore, err := d.Store.ListPixQRCodes(c.UserContext(), store.IDListParams{Scope: dashScope(c), Limit: dashPageSize,
		StartingAfter: c.Query("starting_after")})
	if err != nil {
		return err
	}
	m := views.PixQRCodesPage{Nav: d.nav(c, "pix_qr_codes"), CanCreate: may(c, operations.Payments)}
	now := d.Store.Now()
	for i := range page {
		q := &page[i]
		m.Rows = append(m.Rows, views.PixQRCodeRow{ID: q.ID, Description: codeDescription(c, q), AmountLabel: codeAmount(c, q),
			Payments: strconv.FormatInt(q.Payments, 10), Received: pix.FormatBRL(q.ReceivedCents), Standing: q.Standing(now),
			CreatedAt: when(c, q.CreatedAt)})
	}
	if hasMore {
		m.NextURL = "/dashboard/pix_qr_codes?" + url.Values{"starting_after": {page[len(page)-1].ID}}.Encode()
	}
	return reply.Page(c, http.StatusOK, views.PixQRCodes(m))
}

// codeDescription is a code's description, or that it has none.
func codeDescription(c *fiber.Ctx, q *store.PixQRCode) string {
	if q.Description != nil {
		return *q.Description
	}
	return t(c, "qr_codes.untitled")
}

// codeAmount is a code's fixed amount, or that the payer types it.
func codeAmount(c *fiber.Ctx, q *store.PixQRCode) string {
	if q.AmountCents != nil {
		return pix.FormatBRL(*q.AmountCents)
	}
	return t(c, "qr_codes.open_amount")
}

// NewPixQRCode handles GET /dashboard/pix_qr_codes/new.
func (d *Dashboard) NewPixQRCode(c *fiber.Ctx) error {
	return reply.Page(c, http.StatusOK, views.PixQRCodeNew(views.PixQRCodeForm{Nav: d.nav(c, "pix_qr_codes"), Errors: map[string]string{}}))
}

// CreatePixQRCode handles POST /dashboard/pix_qr_codes: the API's rules,
// each refusal beside its field; it leads to the code's page, to print.
func (d *Dashboard) CreatePixQRCode(c *fiber.Ctx) error {
	get := func(name string) string { return strings.TrimSpace(c.FormValue(name)) }
	f := views.PixQRCodeForm{Nav: d.nav(c, "pix_qr_codes"), Errors: map[string]string{}, Description: get("description"),
		Amount: get("amount"), Expires: get("expires")}
	var in operations.QRCodeInput
	if f.Description != "" {
		in.Description = &f.Description
	}
	if f.Amount != "" {
		if cents, ok := pix.ParseBRL(f.Amount); ok && cents > 0 {
			in.AmountCents = cents
		} else {
			f.Errors["amount"] = t(c, "form.amount_format")
		}
	}
	if !throughDay(c, f.Expires, &in.ExpiresAt) {
		f.Errors["expires"] = t(c, "links.error.expires_at")
	}
	if len(f.Errors) > 0 {
		return reply.Page(c, http.StatusUnprocessableEntity, views.PixQRCodeNew(f))
	}
	q, err := d.Ops.CreatePixQRCode(c.UserContext(), request.Actor(c), dashScope(c), in)
	if refused := map[string]string{}; refusedFields(c, err, refused) {
		for param, words := range refused {
			f.Errors[linkFormField[param]] = words
		}
		return reply.Page(c, http.StatusUnprocessableEntity, views.PixQRCodeNew(f))
	}
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "qr_codes.created"), "/dashboard/pix_qr_codes/"+q.ID)
}

// pixQRCode is the static code the path names, of the account and mode shown.
func (d *Dashboard) pixQRCode(c *fiber.Ctx) (*store.PixQRCode, error) {
	id := pathParam(c, "id")
	q, err := d.Store.PixQRCodeOf(c.UserContext(), dashScope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuch("QR code", "id", id)
	}
	return q, err
}

// DeactivatePixQRCode handles POST /dashboard/pix_qr_codes/{id}/deactivate:
// the code takes no more payments.
func (d *Dashboard) DeactivatePixQRCode(c *fiber.Ctx) error {
	q, err := d.pixQRCode(c)
	if err != nil {
		return err
	}
	if _, err := d.Ops.DeactivatePixQRCode(c.UserContext(), request.Actor(c), dashScope(c), q.ID); err != nil {
		return d.noticeOrErr(c, "/dashboard/pix_qr_codes/"+q.ID, err)
	}
	return d.noticeAndGo(c, t(c, "qr_codes.deactivated"), "/dashboard/pix_qr_codes/"+q.ID)
}

// PixQRCodeDetail handles GET /dashboard/pix_qr_codes/{id}.
func (d *Dashboard) PixQRCodeDetail(c *fiber.Ctx) error {
	q, err := d.pixQRCode(c)
	if err != nil {
		return err
	}
	m := views.PixQRCodeDetail{Nav: d.nav(c, "pix_qr_codes"), ID: q.ID, Description: codeDescription(c, q), AmountLabel: codeAmount(c, q),
		BRCode: q.BRCode, QRCodeURL: q.BaseURL + "/pay/qr/" + q.ID + "/qr.png", PageURL: q.BaseURL + "/pay/qr/" + q.ID,
		Standing: q.Standing(d.Store.Now()), Payments: strconv.FormatInt(q.Payments, 10), Received: pix.FormatBRL(q.ReceivedCents),
		CreatedAt: when(c, q.CreatedAt), PaymentsURL: "/dashboard/payments?" + url.Values{"pix_qr_code": {q.ID}}.Encode(),
		DownloadName: "pix-" + q.ID + ".png", CanDeactivate: q.Status == store.QRCodeActive && may(c, operations.Payments)}
	if q.ExpiresAt != nil {
		m.ExpiresAt = when(c, *q.ExpiresAt)
	}
	if m.Standing != store.QRCodeActive {
		m.QRCodeURL, m.PageURL = "", "" // both public only while it takes payments
	}
	if m.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.PixQRCodeDetailPage(m))
}
