package dashboard

import (
	"cmp"
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
	"payments/web/reply"
	"payments/web/request"
)

const dashPageSize = 25

// dashScope is what the signed-in owner sees: their account in the current mode.
func dashScope(c *fiber.Ctx) store.Scope {
	u := request.CurrentUser(c)
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
	return reply.Page(c, http.StatusOK, views.Payments(model))
}

// PaymentDetail handles GET /dashboard/payments/{id}.
func (d *Dashboard) PaymentDetail(c *fiber.Ctx) error {
	ref := pathParam(c, "id")
	scope := dashScope(c)
	p, err := d.Store.Payment(c.UserContext(), scope, ref)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuchPayment(ref)
	}
	if err != nil {
		return err
	}
	m, err := d.paymentDetail(c, p)
	if err != nil {
		return err
	}
	m.BackURL, m.BackLabel = "/dashboard/payments", "Payments"
	owner := request.CurrentUser(c).User.Role == store.RoleOwner
	m.CanSimulate = !p.Livemode && owner &&
		slices.Contains([]string{store.StatusPending, store.StatusExpired, store.StatusCanceled}, p.Status)
	m.CanRefund = owner && p.Status == store.StatusPaid
	m.CanDispute = !p.Livemode && owner && p.Status == store.StatusPaid && len(m.Disputes) == 0
	for i := range m.Disputes {
		m.Disputes[i].CanClose = !p.Livemode && owner && m.Disputes[i].Status == store.DisputeOpen
		m.CanRefund = m.CanRefund && m.Disputes[i].Status != store.DisputeOpen
	}
	if m.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.PaymentDetailPage(m))
}

// paymentDetail builds the detail page of p: its fields, its refunds,
// disputes and received transfers, and its events (the disputes' included)
// with each event's deliveries.
func (d *Dashboard) paymentDetail(c *fiber.Ctx, p *store.Payment) (views.PaymentDetail, error) {
	ctx := c.UserContext()
	scope := p.Scope()
	events, err := d.Store.EventsForObject(ctx, scope, p.ID.String())
	if err != nil {
		return views.PaymentDetail{}, err
	}
	disputes, err := d.Store.DisputesForPayment(ctx, scope, p.ID)
	if err != nil {
		return views.PaymentDetail{}, err
	}
	for _, dsp := range disputes {
		more, err := d.Store.EventsForObject(ctx, scope, dsp.ID)
		if err != nil {
			return views.PaymentDetail{}, err
		}
		events = append(events, more...)
	}
	// Event ids are time-ordered, so they break ties within a millisecond.
	slices.SortFunc(events, func(a, b store.Event) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	refunds, err := d.Store.RefundsForPayment(ctx, scope, p.ID)
	if err != nil {
		return views.PaymentDetail{}, err
	}
	transfers, err := d.Store.PixNotificationsForPayment(ctx, p.ID)
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
		CheckoutURL: p.CheckoutURL, CreatedAt: views.FormatTime(p.CreatedAt), ExpiresAt: views.FormatTime(p.ExpiresAt),
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
		m.Events = append(m.Events, views.EventView{ID: e.ID, Type: e.Type, At: views.FormatTime(e.CreatedAt), Deliveries: byEvent[e.ID]})
	}
	for _, dsp := range disputes {
		v := views.DisputeView{ID: dsp.ID, Status: dsp.Status, Reason: dsp.Reason, AmountLabel: pix.FormatBRL(dsp.AmountCents),
			OpenedAt: views.FormatTime(dsp.CreatedAt)}
		if dsp.ClosedAt != nil {
			v.ClosedAt = views.FormatTime(*dsp.ClosedAt)
		}
		m.Disputes = append(m.Disputes, v)
	}
	objects := []string{p.ID.String()}
	for _, r := range refunds {
		reason := "Refunded on request"
		if r.Reason == store.RefundDisputeLost {
			reason = "Returned: dispute lost"
		}
		v := views.RefundView{ID: r.ID, AmountLabel: pix.FormatBRL(r.AmountCents), Reason: reason, Status: r.Status,
			At: views.FormatTime(r.CreatedAt)}
		if r.FailureReason != nil {
			v.FailureReason = *r.FailureReason
		}
		m.Refunds = append(m.Refunds, v)
		objects = append(objects, r.ID)
	}
	for _, t := range transfers {
		m.Transfers = append(m.Transfers, views.TransferView{EndToEndID: t.EndToEndID, AmountLabel: pix.FormatBRL(t.AmountCents),
			Outcome: t.Outcome, At: views.FormatTime(t.ReceivedAt)})
		objects = append(objects, t.EndToEndID)
	}
	if p.Livemode {
		if m.PSPSteps, err = d.pspSteps(ctx, objects); err != nil {
			return views.PaymentDetail{}, err
		}
	}
	return m, nil
}

// RefundPayment handles POST /dashboard/payments/{id}/refund.
func (d *Dashboard) RefundPayment(c *fiber.Ctx) error {
	ref := pathParam(c, "id")
	back := "/dashboard/payments/" + ref
	scope := dashScope(c)
	if d.liveModeOff(scope) {
		return d.noticeOrErr(c, back, reply.Forbidden("live_mode_disabled",
			"Live mode is off on this service: no payment service provider is configured."))
	}
	p, err := d.Store.RefundPayment(c.UserContext(), scope, ref)
	switch {
	case errors.Is(err, store.ErrPaymentDisputed):
		return d.noticeOrErr(c, back, reply.InvalidRequest(http.StatusConflict, "payment_disputed",
			"This payment has an open dispute; it can be refunded once the dispute is won."))
	case errors.Is(err, store.ErrBalanceInsufficient):
		return d.noticeOrErr(c, back, reply.InvalidRequest(http.StatusConflict, "balance_insufficient",
			"The available balance does not cover this refund."))
	case err != nil:
		return d.noticeOrErr(c, back, reply.Refund(err, ref))
	}
	notice := "Refunded " + pix.FormatBRL(p.AmountCents) + " to the payer."
	if p.Livemode {
		notice = "Refund requested: the PSP is returning the money to the payer (devolução); the refund is pending until the payer's bank confirms it."
	}
	if err := d.setFlash(c, flashNotice, notice); err != nil {
		return err
	}
	return c.Redirect(back, http.StatusSeeOther)
}

// SimulateDispute handles POST /dashboard/payments/{id}/dispute in test
// mode: the payer's bank opens a PIX MED claim.
func (d *Dashboard) SimulateDispute(c *fiber.Ctx) error {
	scope := dashScope(c)
	if scope.Livemode {
		return reply.TestModeOnly("Disputes can only be simulated in test mode.")
	}
	ref := pathParam(c, "id")
	if _, err := d.Store.OpenDispute(c.UserContext(), scope, ref, store.DisputeReasons[0]); err != nil {
		return d.noticeOrErr(c, "/dashboard/payments/"+ref, reply.OpenDispute(err, ref))
	}
	return c.Redirect("/dashboard/payments/"+ref, http.StatusSeeOther)
}

// SimulateDisputeOutcome handles POST /dashboard/disputes/{id}/{won|lost}
// in test mode, and returns to the disputed payment.
func (d *Dashboard) SimulateDisputeOutcome(c *fiber.Ctx) error {
	scope := dashScope(c)
	if scope.Livemode {
		return reply.TestModeOnly("Disputes can only be simulated in test mode.")
	}
	status := c.Params("outcome")
	if status != store.DisputeWon && status != store.DisputeLost {
		return reply.NoSuch("page", "", c.Path())
	}
	id := pathParam(c, "id")
	dsp, err := d.Store.Dispute(c.UserContext(), scope, id)
	if err != nil {
		return reply.Dispute(err, id)
	}
	back := "/dashboard/payments/" + dsp.PaymentID.String()
	if _, err := d.Store.CloseDispute(c.UserContext(), scope, id, status); err != nil {
		return d.noticeOrErr(c, back, reply.Dispute(err, id))
	}
	return c.Redirect(back, http.StatusSeeOther)
}

// SimulatePayment handles POST /dashboard/payments/{id}/simulate: in test
// mode, the payment is confirmed as the PSP would.
func (d *Dashboard) SimulatePayment(c *fiber.Ctx) error {
	ref := pathParam(c, "id")
	scope := dashScope(c)
	if scope.Livemode {
		return reply.TestModeOnly("Payments can only be simulated in test mode.")
	}
	p, err := d.Store.MarkPaymentPaid(c.UserContext(), scope, ref)
	if err != nil {
		return reply.PaymentTransition(err, ref, store.StatusPaid)
	}
	return c.Redirect("/dashboard/payments/"+p.ID.String(), http.StatusSeeOther)
}
