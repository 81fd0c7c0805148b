package dashboard

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// moneyList reads a list's filter (a status of statuses, local days in the
// account's zone) into the store's params and the page's form.
func moneyList(c *fiber.Ctx, kind string, statuses []string) (store.IDListParams, views.MoneyListPage, error) {
	f := views.MoneyListFilter{Status: c.Query("status"), Since: c.Query("since"), Until: c.Query("until")}
	page := views.MoneyListPage{Kind: kind, Statuses: statuses, Filter: f}
	p := store.IDListParams{Scope: dashScope(c), Status: f.Status, Limit: dashPageSize, StartingAfter: c.Query("starting_after")}
	if f.Status != "" && !slices.Contains(statuses, f.Status) {
		return p, page, reply.InvalidParam("parameter_invalid", "status", "status must be one of %v.", statuses)
	}
	var err error
	p.CreatedFrom, p.CreatedBefore, err = localDays(c, f.Since, f.Until)
	return p, page, err
}

// nextURL is the list's next page, its filter kept.
func nextURL(page views.MoneyListPage, lastID string) string {
	q := url.Values{"starting_after": {lastID}}
	for k, v := range map[string]string{"status": page.Filter.Status, "since": page.Filter.Since, "until": page.Filter.Until} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return page.Path() + "?" + q.Encode()
}

// Refunds handles GET /dashboard/refunds: the account's refunds (Devoluções), newest first.
func (d *Dashboard) Refunds(c *fiber.Ctx) error {
	p, page, err := moneyList(c, "refund", store.RefundStatuses)
	if err != nil {
		return err
	}
	rows, more, err := d.Store.ListRefunds(c.UserContext(), p)
	if err != nil {
		return err
	}
	page.Nav, page.Subject = d.nav(c, "refunds"), t(c, "lists.payment")
	for _, r := range rows {
		detail := views.Label(c.UserContext(), "refund_reason", r.Reason)
		if r.FailureReason != nil {
			detail += " · " + *r.FailureReason
		}
		page.Rows = append(page.Rows, views.MoneyRow{ID: r.ID, Status: r.Status, AmountLabel: pix.FormatBRL(r.AmountCents),
			Subject: r.PaymentID.String(), SubjectURL: "/dashboard/payments/" + r.PaymentID.String(), Detail: detail, CreatedAt: when(c, r.CreatedAt)})
	}
	if more {
		page.NextURL = nextURL(page, rows[len(rows)-1].ID)
	}
	return reply.Page(c, http.StatusOK, views.MoneyList(page))
}

// Disputes handles GET /dashboard/disputes: the account's disputes (MED), newest first.
func (d *Dashboard) Disputes(c *fiber.Ctx) error {
	p, page, err := moneyList(c, "dispute", store.DisputeStatuses)
	if err != nil {
		return err
	}
	rows, more, err := d.Store.ListDisputes(c.UserContext(), p)
	if err != nil {
		return err
	}
	page.Nav, page.Subject = d.nav(c, "disputes"), t(c, "lists.payment")
	for _, r := range rows {
		page.Rows = append(page.Rows, views.MoneyRow{ID: r.ID, Status: r.Status, AmountLabel: pix.FormatBRL(r.AmountCents),
			Subject: r.PaymentID.String(), SubjectURL: "/dashboard/payments/" + r.PaymentID.String(),
			Detail: views.Label(c.UserContext(), "dispute_reason", r.Reason), CreatedAt: when(c, r.CreatedAt)})
	}
	if more {
		page.NextURL = nextURL(page, rows[len(rows)-1].ID)
	}
	return reply.Page(c, http.StatusOK, views.MoneyList(page))
}

// Withdrawals handles GET /dashboard/withdrawals: the account's payouts (Saques), newest first.
func (d *Dashboard) Withdrawals(c *fiber.Ctx) error {
	p, page, err := moneyList(c, "withdrawal", store.WithdrawalStatuses)
	if err != nil {
		return err
	}
	rows, more, err := d.Store.ListWithdrawals(c.UserContext(), p)
	if err != nil {
		return err
	}
	page.Nav, page.Subject = d.nav(c, "balance"), t(c, "lists.pix_key")
	for _, r := range rows {
		var detail string
		switch {
		case r.FailureReason != nil:
			detail = *r.FailureReason
		case r.Description != nil:
			detail = *r.Description
		}
		page.Rows = append(page.Rows, views.MoneyRow{ID: r.ID, Status: r.Status, AmountLabel: pix.FormatBRL(r.AmountCents),
			Subject: pix.FormatKey(r.PixKey, pix.KeyType(r.PixKeyType)), Detail: detail, CreatedAt: when(c, r.CreatedAt)})
	}
	if more {
		page.NextURL = nextURL(page, rows[len(rows)-1].ID)
	}
	return reply.Page(c, http.StatusOK, views.MoneyList(page))
}
