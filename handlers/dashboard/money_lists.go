package dashboard

import (
	"context"
	"net/http"
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// moneyList renders one of the lists: its filter read (a status of
// statuses, local days in the account's zone), a page of list's rows, each
// made a row by row, and the next page's link with the filter kept.
func moneyList[T any](d *Dashboard, c *fiber.Ctx, kind, active string, statuses []string, subject string,
	list func(context.Context, store.IDListParams) ([]T, bool, error), row func(*T) views.MoneyRow,
) error {
	f := views.MoneyListFilter{Status: c.Query("status"), Since: c.Query("since"), Until: c.Query("until")}
	if f.Status != "" && !slices.Contains(statuses, f.Status) {
		return reply.InvalidParam("parameter_invalid", "status", "status must be one of %v.", statuses)
	}
	p := store.IDListParams{Scope: dashScope(c), Status: f.Status, Limit: dashPageSize, StartingAfter: c.Query("starting_after")}
	var err error
	if p.CreatedFrom, p.CreatedBefore, err = localDays(c, f.Since, f.Until); err != nil {
		return err
	}
	rows, more, err := list(c.UserContext(), p)
	if err != nil {
		return err
	}
	page := views.MoneyListPage{Nav: d.nav(c, active), Kind: kind, Statuses: statuses, Filter: f, Subject: t(c, subject)}
	for i := range rows {
		page.Rows = append(page.Rows, row(&rows[i]))
	}
	if more {
		q := filterQuery(map[string]string{"status": f.Status, "since": f.Since, "until": f.Until})
		q.Set("starting_after", page.Rows[len(page.Rows)-1].ID)
		page.NextURL = page.Path() + "?" + q.Encode()
	}
	return reply.Page(c, http.StatusOK, views.MoneyList(page))
}

// Refunds handles GET /dashboard/refunds: the account's refunds (Devoluções), newest first.
func (d *Dashboard) Refunds(c *fiber.Ctx) error {
	return moneyList(d, c, "refund", "refunds", store.RefundStatuses, "lists.payment", d.Store.ListRefunds, func(r *store.Refund) views.MoneyRow {
		detail := views.Label(c.UserContext(), "refund_reason", r.Reason)
		if r.FailureReason != nil {
			detail += " · " + *r.FailureReason
		}
		return views.MoneyRow{ID: r.ID, Status: r.Status, AmountLabel: pix.FormatBRL(r.AmountCents), Subject: r.PaymentID.String(),
			SubjectURL: "/dashboard/payments/" + r.PaymentID.String(), Detail: detail, CreatedAt: when(c, r.CreatedAt)}
	})
}

// Disputes handles GET /dashboard/disputes: the account's disputes (MED), newest first.
func (d *Dashboard) Disputes(c *fiber.Ctx) error {
	return moneyList(d, c, "dispute", "disputes", store.DisputeStatuses, "lists.payment", d.Store.ListDisputes, func(r *store.Dispute) views.MoneyRow {
		return views.MoneyRow{ID: r.ID, Status: r.Status, AmountLabel: pix.FormatBRL(r.AmountCents), Subject: r.PaymentID.String(),
			SubjectURL: "/dashboard/payments/" + r.PaymentID.String(), Detail: views.Label(c.UserContext(), "dispute_reason", r.Reason),
			CreatedAt: when(c, r.CreatedAt)}
	})
}

// Withdrawals handles GET /dashboard/withdrawals: the account's payouts (Saques), newest first.
func (d *Dashboard) Withdrawals(c *fiber.Ctx) error {
	return moneyList(d, c, "withdrawal", "balance", store.WithdrawalStatuses, "lists.pix_key", d.Store.ListWithdrawals, func(r *store.Withdrawal) views.MoneyRow {
		var detail string
		switch {
		case r.FailureReason != nil:
			detail = *r.FailureReason
		case r.Description != nil:
			detail = *r.Description
		}
		return views.MoneyRow{ID: r.ID, Status: r.Status, AmountLabel: pix.FormatBRL(r.AmountCents),
			Subject: pix.FormatKey(r.PixKey, pix.KeyType(r.PixKeyType)), Detail: detail, CreatedAt: when(c, r.CreatedAt)}
	})
}
