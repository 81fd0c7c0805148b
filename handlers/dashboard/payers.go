package dashboard

import (
	"net/http"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// Payers handles GET /dashboard/customers: the account's payers (Clientes)
// grouped by CPF or CNPJ, most recently charged first, filtered by a
// document (or its first digits) and the days of their last charge, each
// linked to their payments (the payments list searched by the document).
func (d *Dashboard) Payers(c *fiber.Ctx) error {
	page := views.PayersPage{Nav: d.nav(c, "customers"), Document: c.Query("document"), Since: c.Query("since"), Until: c.Query("until")}
	p := store.PayerListParams{Scope: dashScope(c), Limit: dashPageSize, StartingAfter: c.Query("starting_after")}
	if page.Document != "" {
		digits, ok := pix.CompactDocument(page.Document)
		if !ok || digits == "" || len(digits) > 14 {
			return reply.InvalidParam("parameter_invalid", "document", "document must be a CPF or CNPJ, or its first digits.")
		}
		p.DocumentPrefix = digits
	}
	var err error
	if p.ChargedFrom, p.ChargedBefore, err = localDays(c, page.Since, page.Until); err != nil {
		return err
	}
	rows, more, err := d.Store.ListPayers(c.UserContext(), p)
	if err != nil {
		return err
	}
	for _, r := range rows {
		page.Rows = append(page.Rows, views.PayerRow{Document: r.Document, DocumentLabel: pix.FormatDocument(r.Document), Name: r.Name,
			Email: r.Email, Payments: views.FormatInt(c.UserContext(), r.Payments), Paid: views.FormatInt(c.UserContext(), r.Paid),
			PaidLabel: pix.FormatBRL(r.PaidCents), LastChargeAt: when(c, r.LastChargeAt),
			PaymentsURL: "/dashboard/payments?q=" + url.QueryEscape(r.Document)})
	}
	if more {
		q := filterQuery(map[string]string{"document": page.Document, "since": page.Since, "until": page.Until})
		q.Set("starting_after", rows[len(rows)-1].Document)
		page.NextURL = "/dashboard/customers?" + q.Encode()
	}
	return reply.Page(c, http.StatusOK, views.Payers(page))
}
