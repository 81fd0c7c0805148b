package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

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
	params := store.PaymentListParams{Scope: dashScope(c), Limit: dashPageSize, Search: strings.TrimSpace(c.Query("q"))}
	if s := c.Query("status"); slices.Contains(store.PaymentStatuses, s) {
		params.Status = s
	}
	// Dates are whole UTC days; an unreadable one is ignored, as a browser
	// date input only sends YYYY-MM-DD.
	from, fromErr := time.Parse(time.DateOnly, c.Query("from"))
	if fromErr == nil {
		params.CreatedGTE = &from
	}
	to, toErr := time.Parse(time.DateOnly, c.Query("to"))
	if toErr == nil {
		end := to.Add(24*time.Hour - time.Millisecond)
		params.CreatedLTE = &end
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
	model := views.PaymentsPage{Nav: d.nav(c, "payments"), Status: params.Status, Statuses: store.PaymentStatuses, Query: params.Search}
	if fromErr == nil {
		model.From = from.Format(time.DateOnly)
	}
	if toErr == nil {
		model.To = to.Format(time.DateOnly)
	}
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
		for name, value := range map[string]string{"status": model.Status, "q": model.Query, "from": model.From, "to": model.To} {
			if value != "" {
				q.Set(name, value)
			}
		}
		return "/dashboard/payments?" + q.Encode()
	}
	if len(page) > 0 {
		// Walking back (ending_before), older pages always exist and newer
		// ones only if hasMore; walking forward, the reverse.
		backward := params.EndingBefore != nil
		if hasMore || backward {
			model.NextURL = link("starting_after", page[len(page)-1].ID.String())
		}
		if params.StartingAfter != nil || (backward && hasMore) {
			model.PrevURL = link("ending_before", page[0].ID.String())
		}
	}
	return Render(c, http.StatusOK, views.Payments(model))
}

// PaymentDetail handles GET /dashboard/payments/{id}.
func (d *Dashboard) PaymentDetail(c *fiber.Ctx) error {
	ref := pathRef(c, "id")
	scope := dashScope(c)
	p, err := d.Store.Payment(c.UserContext(), scope, ref)
	if errors.Is(err, store.ErrNotFound) {
		return NoSuchPayment(ref)
	}
	if err != nil {
		return err
	}
	m, err := d.paymentDetail(c, p)
	if err != nil {
		return err
	}
	m.BackURL, m.BackLabel = "/dashboard/payments", "Payments"
	m.CanSimulate = !p.Livemode && currentUser(c).User.Role == store.RoleOwner &&
		slices.Contains([]string{store.StatusPending, store.StatusExpired, store.StatusCanceled}, p.Status)
	return Render(c, http.StatusOK, views.PaymentDetailPage(m))
}

// paymentDetail builds the detail page of p: its fields, and its events
// with each event's deliveries.
func (d *Dashboard) paymentDetail(c *fiber.Ctx, p *store.Payment) (views.PaymentDetail, error) {
	ctx := c.UserContext()
	scope := store.Scope{AccountID: p.AccountID, Livemode: p.Livemode}
	events, err := d.Store.EventsForObject(ctx, scope, p.ID.String())
	if err != nil {
		return views.PaymentDetail{}, err
	}
	ids := make([]string, len(events))
	for i := range events {
		ids[i] = events[i].ID
	}
	deliveries, err := d.Store.DeliveriesForEvents(ctx, scope, ids)
	if err != nil {
		return views.PaymentDetail{}, err
	}
	byEvent := map[string][]views.EventDelivery{}
	for _, dl := range deliveries {
		byEvent[dl.EventID] = append(byEvent[dl.EventID], views.EventDelivery{WebhookID: dl.WebhookID, Status: dl.Status, Attempts: dl.Attempts})
	}
	m := views.PaymentDetail{
		Nav: d.nav(c, "payments"), ID: p.ID.String(), Status: p.Status, AmountLabel: pix.FormatBRL(p.AmountCents),
		FeeLabel: pix.FormatBRL(p.FeeCents), TxID: p.CorrelationID, BRCode: p.BRCode, QRCodeURL: p.QRCodeURL,
		CheckoutURL: p.CheckoutURL, CreatedAt: p.CreatedAt.UTC().Format(dashTime), ExpiresAt: p.ExpiresAt.UTC().Format(dashTime),
	}
	if p.ExternalID != nil {
		m.ExternalID = *p.ExternalID
	}
	if p.Description != nil {
		m.Description = *p.Description
	}
	if p.Customer != nil {
		m.Customer = p.Customer.Name + " · " + p.Customer.Email + " · " + p.Customer.Document
	}
	for _, e := range events {
		m.Events = append(m.Events, views.EventView{ID: e.ID, Type: e.Type, At: e.CreatedAt.UTC().Format(dashTime), Deliveries: byEvent[e.ID]})
	}
	return m, nil
}

// SimulatePayment handles POST /dashboard/payments/{id}/simulate: in test
// mode, the payment is confirmed as the PSP would.
func (d *Dashboard) SimulatePayment(c *fiber.Ctx) error {
	ref := pathRef(c, "id")
	scope := dashScope(c)
	if scope.Livemode {
		return &Error{Status: http.StatusForbidden, Type: TypePermission, Code: "test_mode_only",
			Message: "Payments can only be simulated in test mode."}
	}
	p, err := d.Store.MarkPaymentPaid(c.UserContext(), scope, ref)
	if err != nil {
		return transitionErr(err, ref, store.StatusPaid)
	}
	return c.Redirect("/dashboard/payments/"+p.ID.String(), http.StatusSeeOther)
}
