package handlers

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/store"
	"payments/views"
)

const dashPageSize = 25

// dashScope is what the signed-in owner sees: their account in the current mode.
func dashScope(c *fiber.Ctx) store.Scope {
	u := currentUser(c)
	var account string
	if u.User.AccountID != nil {
		account = *u.User.AccountID
	}
	return store.Scope{AccountID: account, Livemode: u.Livemode}
}

// Payments handles GET /dashboard/payments.
func (d *Dashboard) Payments(c *fiber.Ctx) error {
	params := store.PaymentListParams{Scope: dashScope(c), Limit: dashPageSize}
	if s := c.Query("status"); slices.Contains(store.PaymentStatuses, s) {
		params.Status = s
	}
	if id, ok := store.ParsePaymentID(c.Query("starting_after")); ok {
		params.StartingAfter = &id
	} else if id, ok := store.ParsePaymentID(c.Query("ending_before")); ok {
		params.EndingBefore = &id
	}
	page, hasMore, err := d.Store.ListPayments(c.UserContext(), params)
	if err != nil {
		return err
	}
	model := views.PaymentsPage{Nav: d.nav(c, "payments"), Status: params.Status, Statuses: store.PaymentStatuses}
	for i := range page {
		p := &page[i]
		row := views.PaymentRow{ID: p.ID.String(), Status: p.Status, AmountLabel: pix.FormatBRL(p.AmountCents),
			CreatedAt: p.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")}
		if p.ExternalID != nil {
			row.ExternalID = *p.ExternalID
		}
		if p.Customer != nil {
			row.Customer = p.Customer.Name + " · " + p.Customer.Email
		}
		model.Rows = append(model.Rows, row)
	}
	link := func(cursor, id string) string {
		q := url.Values{cursor: {id}}
		if params.Status != "" {
			q.Set("status", params.Status)
		}
		return "/dashboard/payments?" + q.Encode()
	}
	if len(page) > 0 {
		backward := params.EndingBefore != nil
		if hasMore && !backward || backward {
			model.NextURL = link("starting_after", page[len(page)-1].ID.String())
		}
		if params.StartingAfter != nil || backward && hasMore {
			model.PrevURL = link("ending_before", page[0].ID.String())
		}
	}
	return Render(c, http.StatusOK, views.Payments(model))
}
