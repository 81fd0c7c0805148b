package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/pix/calendar"
	"payments/store"
	"payments/views"
)

// Subscriptions handles GET /dashboard/subscriptions.
func (d *Dashboard) Subscriptions(c *fiber.Ctx) error {
	page, hasMore, err := d.Store.ListSubscriptions(c.UserContext(), dashScope(c), dashPageSize, c.Query("starting_after"))
	if err != nil {
		return err
	}
	m := views.SubscriptionsPage{Nav: d.nav(c, "subscriptions"), CanCreate: may(c, operations.Payments)}
	for i := range page {
		sub := &page[i]
		row := views.SubscriptionRow{ID: sub.ID, Status: sub.Status, Payer: sub.Payer.Name, Contract: sub.Contract,
			AmountLabel: subscriptionAmount(c, sub), Interval: sub.Interval, CreatedAt: when(c, sub.CreatedAt)}
		if sub.NextCycleOn != nil {
			row.NextCycle = views.Day(calendar.FromTime(*sub.NextCycleOn))
		}
		m.Rows = append(m.Rows, row)
	}
	if hasMore {
		m.NextURL = "/dashboard/subscriptions?" + url.Values{"starting_after": {page[len(page)-1].ID}}.Encode()
	}
	return reply.Page(c, http.StatusOK, views.Subscriptions(m))
}

// subscriptionAmount is a cycle's amount, or "up to" its ceiling.
func subscriptionAmount(c *fiber.Ctx, sub *store.Subscription) string {
	if sub.AmountCents != nil {
		return pix.FormatBRL(*sub.AmountCents)
	}
	return t(c, "sub_checkout.up_to", "Amount", pix.FormatBRL(*sub.MaxAmountCents))
}

// NewSubscription handles GET /dashboard/subscriptions/new.
func (d *Dashboard) NewSubscription(c *fiber.Ctx) error {
	return reply.Page(c, http.StatusOK, views.SubscriptionNew(d.subscriptionForm(c, false)))
}

func (d *Dashboard) subscriptionForm(c *fiber.Ctx, posted bool) views.SubscriptionForm {
	f := views.SubscriptionForm{Nav: d.nav(c, "subscriptions"), Errors: map[string]string{}, Intervals: store.Intervals,
		Journeys: store.Journeys, Journey: store.JourneyFirstPayment, Retries: true}
	if !posted {
		return f
	}
	get := func(name string) string { return strings.TrimSpace(c.FormValue(name)) }
	f.PayerName, f.PayerDocument, f.Contract, f.Description = get("payer_name"), get("payer_document"), get("contract"), get("description")
	f.Interval, f.StartDate, f.EndDate, f.Amount, f.AmountKind = get("interval"), get("start_date"), get("end_date"), get("amount"), get("amount_kind")
	f.Journey, f.Retries = get("journey"), get("retries") == "1"
	f.BankISPB, f.BankBranch, f.BankNumber = get("bank_ispb"), get("bank_branch"), get("bank_number")
	return f
}

// CreateSubscription handles POST /dashboard/subscriptions: the API's
// rules, errors beside their fields; it leads to the subscription's page,
// with the payer's QR and link.
func (d *Dashboard) CreateSubscription(c *fiber.Ctx) error {
	f := d.subscriptionForm(c, true)
	in := operations.NewSubscription{Interval: f.Interval, Journey: f.Journey, Contract: f.Contract, RetryPolicy: store.RetryNone,
		Metadata: map[string]string{}}
	if f.Retries {
		in.RetryPolicy = store.RetryThreeInSeven
	}
	bad := func(field, id string, kv ...any) { f.Errors[field] = t(c, id, kv...) }
	in.Payer.Name = f.PayerName
	if f.BankISPB != "" || f.BankBranch != "" || f.BankNumber != "" {
		in.Payer.BankAccount = &store.BankAccount{ISPB: strings.ToUpper(f.BankISPB), Branch: f.BankBranch, Number: f.BankNumber}
	}
	if f.PayerName == "" || len([]rune(f.PayerName)) > 140 {
		bad("payer_name", "form.customer_name")
	}
	if digits, _, ok := pix.NormalizeDocument(f.PayerDocument); ok {
		in.Payer.Document = digits
	} else {
		bad("payer_document", "form.document")
	}
	if f.Description != "" {
		if len([]rune(f.Description)) > store.MaxSubscriptionDescription {
			bad("description", "form.too_long", "Max", store.MaxSubscriptionDescription)
		}
		in.Description = &f.Description
	}
	start, err := calendar.ParseDate(f.StartDate)
	if err != nil {
		bad("start_date", "subscriptions.error.start_date")
	}
	in.StartDate = start
	if f.EndDate != "" {
		end, err := calendar.ParseDate(f.EndDate)
		if err != nil {
			bad("end_date", "subscriptions.error.end_date")
		}
		in.EndDate = &end
	}
	switch cents, ok := pix.ParseBRL(f.Amount); {
	case !ok:
		bad("amount", "form.amount_format")
	case cents < store.MinAmountCents || cents > store.MaxAmountCents:
		bad("amount", "form.amount_too_large", "Max", pix.FormatBRL(store.MaxAmountCents))
	case f.AmountKind == "max":
		in.MaxAmountCents = &cents
	default:
		in.AmountCents = &cents
	}
	if len(f.Errors) > 0 {
		return reply.Page(c, http.StatusUnprocessableEntity, views.SubscriptionNew(f))
	}
	scope := dashScope(c)
	acct, err := d.Store.Account(c.UserContext(), scope.AccountID)
	if err != nil {
		return err
	}
	sub, err := d.Ops.CreateSubscription(c.UserContext(), request.Actor(c), acct, scope.Livemode, in)
	// The operation's rules, beside their fields in the person's words.
	var problem *operations.SubscriptionProblem
	switch {
	case errors.As(err, &problem):
		// The API's field, the form's, and the message that says it.
		where := map[string][2]string{"contract": {"contract", "subscriptions.error.contract"},
			"start_date": {"start_date", "subscriptions.error.start_date"}, "end_date": {"end_date", "subscriptions.error.end_date"},
			"amount_cents": {"amount", "form.amount_format"}}[problem.Field]
		if strings.HasPrefix(problem.Field, "payer.bank_account") {
			where = [2]string{"bank_account", "subscriptions.error.bank_account"}
		}
		bad(where[0], where[1], "Max", store.MaxContract)
		return reply.Page(c, http.StatusUnprocessableEntity, views.SubscriptionNew(f))
	case errors.Is(err, operations.ErrFirstPaymentAmount):
		bad("journey", "subscriptions.error.first_payment")
		return reply.Page(c, http.StatusUnprocessableEntity, views.SubscriptionNew(f))
	case err != nil:
		return err
	}
	if sub.Livemode {
		// The page shows the payer's QR once the PSP made it: waited for a moment.
		if _, err := d.Store.WaitForRec(c.UserContext(), sub.ID, time.Now().Add(d.chargeWait())); err != nil {
			return err
		}
	}
	return d.noticeAndGo(c, t(c, "subscriptions.created"), "/dashboard/subscriptions/"+sub.ID)
}

// subscription loads the path's subscription in the session's scope.
func (d *Dashboard) subscription(c *fiber.Ctx) (*store.Subscription, error) {
	id := pathParam(c, "id")
	sub, err := d.Store.Subscription(c.UserContext(), dashScope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuch("subscription", "id", id)
	}
	return sub, err
}

// SubscriptionDetail handles GET /dashboard/subscriptions/{id}.
func (d *Dashboard) SubscriptionDetail(c *fiber.Ctx) error {
	sub, err := d.subscription(c)
	if err != nil {
		return err
	}
	cycles, err := d.Store.SubscriptionCycles(c.UserContext(), sub.Scope(), sub.ID)
	if err != nil {
		return err
	}
	open := sub.Status == store.SubscriptionCreated || sub.Status == store.SubscriptionAwaiting || sub.Status == store.SubscriptionActive
	m := views.SubscriptionDetail{Nav: d.nav(c, "subscriptions"), ID: sub.ID, Status: sub.Status, Journey: sub.Journey,
		Payer: sub.Payer.Name, PayerDocument: pix.FormatDocument(sub.Payer.Document), Contract: sub.Contract, Interval: sub.Interval,
		AmountLabel: subscriptionAmount(c, sub), Start: views.Day(calendar.FromTime(sub.StartDate)),
		CreatedAt: when(c, sub.CreatedAt), Retries: sub.RetryPolicy == store.RetryThreeInSeven,
		CanCancel: open && may(c, operations.Payments), CanSimulate: !sub.Livemode && may(c, operations.Payments),
		Awaiting: sub.Status == store.SubscriptionAwaiting, Active: sub.Status == store.SubscriptionActive}
	if sub.Description != nil {
		m.Description = *sub.Description
	}
	if sub.RecID != nil {
		m.RecID = *sub.RecID
	}
	if sub.EndDate != nil {
		m.End = views.Day(calendar.FromTime(*sub.EndDate))
	}
	if sub.NextCycleOn != nil {
		m.NextCycle = views.Day(calendar.FromTime(*sub.NextCycleOn))
	}
	if sub.CanceledBy != nil {
		m.CanceledBy = *sub.CanceledBy
	}
	if sub.BRCode != nil && sub.Status == store.SubscriptionAwaiting {
		m.BRCode, m.QRCodeURL = *sub.BRCode, "/pay/subscriptions/"+sub.ID+"/qr.png"
		if sub.CheckoutURL != nil {
			m.CheckoutURL = *sub.CheckoutURL
		}
	}
	for i := range cycles {
		p := &cycles[i]
		due, _ := calendar.ParseDate(p.Cycle.DueDate)
		row := views.CycleRow{PaymentID: p.ID.String(), Number: strconv.Itoa(p.Cycle.Number), DueDate: views.Day(due),
			AmountLabel: pix.FormatBRL(p.AmountCents), Status: p.Cycle.Status, Attempts: strconv.Itoa(p.Cycle.Attempts)}
		if p.Cycle.NextAttemptDate != nil {
			next, _ := calendar.ParseDate(*p.Cycle.NextAttemptDate)
			row.NextAttempt = views.Day(next)
		}
		m.Cycles = append(m.Cycles, row)
	}
	if m.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.SubscriptionDetailPage(m))
}

// CancelSubscription handles POST /dashboard/subscriptions/{id}/cancel, confirmed.
func (d *Dashboard) CancelSubscription(c *fiber.Ctx) error {
	sub, err := d.subscription(c)
	if err != nil {
		return err
	}
	if !confirmed(c) {
		return d.confirm(c, "subscriptions", views.Confirmation{Title: t(c, "subscriptions.cancel_title", "Payer", sub.Payer.Name),
			Lines: []views.ConfirmLine{{Label: t(c, "subscriptions.contract"), Value: sub.Contract},
				{Label: t(c, "field.amount"), Value: subscriptionAmount(c, sub)}},
			Warning: t(c, "subscriptions.cancel_warning"), Button: t(c, "subscriptions.cancel"),
			CancelURL: "/dashboard/subscriptions/" + sub.ID, Danger: true})
	}
	if _, err := d.Ops.CancelSubscription(c.UserContext(), request.Actor(c), dashScope(c), sub.ID); err != nil {
		return reply.Refusal(err)
	}
	return d.noticeAndGo(c, t(c, "subscriptions.canceled"), "/dashboard/subscriptions/"+sub.ID)
}

// SimulateSubscription handles POST /dashboard/subscriptions/{id}/simulate?action=:
// test mode's payer's bank (authorize, reject, pay or fail the open
// cycle's debit, the payer's cancellation).
func (d *Dashboard) SimulateSubscription(c *fiber.Ctx) error {
	sub, err := d.subscription(c)
	if err != nil {
		return err
	}
	ctx, who, scope := c.UserContext(), request.Actor(c), dashScope(c)
	switch c.Query("action") {
	case "authorize", "reject":
		_, err = d.Ops.SimulateAuthorization(ctx, who, scope, sub.ID, c.Query("action") == "authorize")
	case "payer_cancel":
		_, err = d.Ops.SimulatePayerCancel(ctx, who, scope, sub.ID)
	case "pay", "fail":
		outcome := operations.CyclePay
		if c.Query("action") == "fail" {
			outcome = operations.CycleInsufficientBalance
		}
		acct, aerr := d.Store.Account(ctx, scope.AccountID)
		if aerr != nil {
			return aerr
		}
		_, err = d.Ops.SimulateCycle(ctx, who, acct, scope, sub.ID, outcome, nil)
	default:
		return reply.InvalidParam("parameter_invalid", "action", "action must be authorize, reject, pay, fail or payer_cancel.")
	}
	// A cycle that cannot be made or settled (not active, a variable
	// subscription's cycle without its amount, one past the end date).
	var invalid *store.InvalidTransitionError
	if errors.As(err, &invalid) || errors.Is(err, store.ErrNoOpenCycle) || errors.Is(err, operations.ErrCycleAmount) ||
		errors.Is(err, store.ErrCycleOpen) || errors.Is(err, store.ErrSubscriptionEnded) {
		return d.noticeAndGo(c, t(c, "subscriptions.cycle_refused"), "/dashboard/subscriptions/"+sub.ID)
	}
	if err != nil {
		return reply.Refusal(err)
	}
	return c.Redirect("/dashboard/subscriptions/"+sub.ID, http.StatusSeeOther)
}
