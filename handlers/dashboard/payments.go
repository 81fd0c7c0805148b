package dashboard

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/pix/calendar"
	"payments/store"
	"payments/views"
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

// localDay reads a date input (YYYY-MM-DD) as that day's start in the
// account's time zone; an unreadable one is no day at all.
func localDay(c *fiber.Ctx, value string) (time.Time, bool) {
	day, err := time.ParseInLocation(time.DateOnly, value, views.LocaleOf(c.UserContext()).TZ)
	return day, err == nil
}

// Payments handles GET /dashboard/payments.
func (d *Dashboard) Payments(c *fiber.Ctx) error {
	params := store.PaymentListParams{Scope: dashScope(c), Limit: dashPageSize, Search: strings.TrimSpace(c.Query("q")),
		PaymentLink: c.Query("payment_link"), PixQRCode: c.Query("pix_qr_code")}
	if s := c.Query("status"); slices.Contains(store.PaymentStatuses, s) {
		params.Status = s
	}
	// Dates are whole days where the account is: an evening payment in
	// Brasília is on that evening's day.
	from, fromOK := localDay(c, c.Query("from"))
	if fromOK {
		params.CreatedGTE = &from
	}
	to, toOK := localDay(c, c.Query("to"))
	if toOK {
		end := to.AddDate(0, 0, 1).Add(-time.Millisecond)
		params.CreatedLTE = &end
	}
	today := calendar.Today(d.Store.Now())
	due := dueFilter(&params, c.Query("due"), today)
	if id, ok := store.ParsePaymentID(c.Query("starting_after")); ok {
		params.StartingAfter = &id
	} else if id, ok := store.ParsePaymentID(c.Query("ending_before")); ok {
		params.EndingBefore = &id
	}
	page, hasMore, err := d.Store.ListPayments(c.UserContext(), params)
	if err != nil {
		return err
	}
	model := views.PaymentsPage{Nav: d.nav(c, "payments"), Status: params.Status, Statuses: store.PaymentStatuses, Query: params.Search,
		CanCreate: may(c, operations.Payments), Due: due, PaymentLink: params.PaymentLink, PixQRCode: params.PixQRCode}
	if due != "" {
		model.Status = ""
	}
	if fromOK {
		model.From = from.Format(time.DateOnly)
	}
	if toOK {
		model.To = to.Format(time.DateOnly)
	}
	paidIDs := make([]uuid.UUID, 0, len(page))
	for i := range page {
		if page[i].Status == store.StatusPaid {
			paidIDs = append(paidIDs, page[i].ID)
		}
	}
	disputed, err := d.Store.UnderOpenDispute(c.UserContext(), params.Scope, paidIDs)
	if err != nil {
		return err
	}
	for i := range page {
		p := &page[i]
		row := views.PaymentRow{ID: p.ID.String(), Status: views.PaymentStanding(p.Status, p.AmountRefundedCents, disputed[p.ID]), AmountLabel: pix.FormatBRL(p.AmountCents), CreatedAt: when(c, p.CreatedAt)}
		if p.ExternalID != nil {
			row.ExternalID = *p.ExternalID
		}
		if p.Description != nil {
			row.Description = *p.Description
		}
		if p.Customer != nil {
			row.Customer = p.Customer.Name
			if p.Customer.Email != "" {
				row.Customer += " · " + p.Customer.Email
			}
		}
		if p.DueTerms != nil {
			row.DueLabel, row.DueBadge = views.Day(p.DueTerms.Due()), dueBadge(p, today)
		}
		model.Rows = append(model.Rows, row)
	}
	link := func(cursor, id string) string {
		q := filterQuery(map[string]string{"status": model.Status, "q": model.Query, "from": model.From, "to": model.To, "due": model.Due,
			"payment_link": model.PaymentLink, "pix_qr_code": model.PixQRCode})
		q.Set(cursor, id)
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

// Due-date filters of the payments list.
const (
	dueToday    = "today"    // pending, due today
	dueOverdue  = "overdue"  // pending, past its due date, still payable
	dueUpcoming = "upcoming" // pending, due later
	dueExpired  = "expired"  // expired unpaid after its last payable day
)

// dueFilter narrows params to the due-date charges the filter names and
// returns it ("" for none or an unknown one).
func dueFilter(params *store.PaymentListParams, filter string, today calendar.Date) string {
	yesterday, tomorrow, ever := today.AddDays(-1), today.AddDays(1), calendar.Of(1970, 1, 1)
	switch filter {
	case dueToday:
		params.DueGTE, params.DueLTE, params.Status = &today, &today, store.StatusPending
	case dueOverdue:
		params.DueGTE, params.DueLTE, params.Status = &ever, &yesterday, store.StatusPending
	case dueUpcoming:
		params.DueGTE, params.Status = &tomorrow, store.StatusPending
	case dueExpired:
		params.DueGTE, params.Status = &ever, store.StatusExpired
	default:
		return ""
	}
	return filter
}

// dueBadge is what a pending due-date charge's row says of its due date:
// due today, or overdue (still payable); nothing otherwise.
func dueBadge(p *store.Payment, today calendar.Date) string {
	if p.Status != store.StatusPending {
		return ""
	}
	switch due := p.DueTerms.Due(); {
	case today.Equal(due):
		return "due.due_today"
	case today.After(due):
		return "due.overdue"
	}
	return ""
}

// NewPayment handles GET /dashboard/payments/new: a charge made by hand,
// to send its checkout link to a customer.
func (d *Dashboard) NewPayment(c *fiber.Ctx) error {
	return reply.Page(c, http.StatusOK, views.PaymentNew(views.PaymentForm{Nav: d.nav(c, "payments"), Errors: map[string]string{}}))
}

// CreatePayment handles POST /dashboard/payments: the API's rules, with
// errors beside their fields; a live charge goes to the PSP like the API's.
func (d *Dashboard) CreatePayment(c *fiber.Ctx) error {
	form := d.paymentForm(c)
	in, ok := d.readPaymentForm(c, &form)
	scope := dashScope(c)
	if !ok {
		return reply.Page(c, http.StatusUnprocessableEntity, views.PaymentNew(form))
	}
	ctx := c.UserContext()
	acct, err := d.Store.Account(ctx, scope.AccountID)
	if err != nil {
		return err
	}
	p, _, err := d.Ops.CreatePayment(ctx, request.Actor(c), acct, scope.Livemode, in, "", nil)
	switch {
	case errors.Is(err, operations.ErrLiveModeOff):
		form.Error = t(c, "error.live_mode_disabled")
		return reply.Page(c, http.StatusUnprocessableEntity, views.PaymentNew(form))
	case errors.Is(err, store.ErrConflict):
		form.Errors["external_id"] = t(c, "error.external_id_taken")
		return reply.Page(c, http.StatusUnprocessableEntity, views.PaymentNew(form))
	case err != nil:
		return err
	}
	notice, flash := t(c, "new_payment.created"), flashNotice
	if scope.Livemode {
		// A live charge is payable once the PSP registered it: the page
		// says so rather than handing out a link nobody can pay yet.
		if p, err = d.Store.WaitForCharge(ctx, p.ID, time.Now().Add(d.chargeWait())); err != nil {
			return err
		}
		switch p.ChargeState {
		case store.ChargeRegistering:
			notice = t(c, "new_payment.registering")
		case store.ChargeFailed:
			notice, flash = t(c, "new_payment.refused"), flashNoticeErr
		}
	}
	if err := d.setFlash(c, flash, notice); err != nil {
		return err
	}
	return c.Redirect("/dashboard/payments/"+p.ID.String(), http.StatusSeeOther)
}

// paymentForm is the new-charge form as posted.
func (d *Dashboard) paymentForm(c *fiber.Ctx) views.PaymentForm {
	form := chargeFields(func(name string) string { return c.FormValue(name) })
	form.Nav = d.nav(c, "payments")
	return form
}

// chargeFields reads a charge's fields, by the new-charge form's names,
// from value: the form, or a row of a batch's CSV.
func chargeFields(value func(name string) string) views.PaymentForm {
	get := func(name string) string { return strings.TrimSpace(value(name)) }
	return views.PaymentForm{Errors: map[string]string{},
		Amount: get("amount"), Description: get("description"), ExternalID: get("external_id"), ExpiresIn: get("expires_in"),
		CustomerName: get("customer_name"), CustomerEmail: get("customer_email"), CustomerDoc: get("customer_document"),
		DueDate: get("due_date"), DaysAfterDue: get("days_after_due"),
		FineKind: get("fine_kind"), FineValue: get("fine_value"),
		InterestKind: get("interest_kind"), InterestValue: get("interest_value"), InterestBusiness: get("interest_business_days") == "1",
		DiscountKind: get("discount_kind"), DiscountValue: get("discount_value"), DiscountUntil: get("discount_until"),
		DiscountBusiness: get("discount_business_days") == "1",
		AbatementKind:    get("abatement_kind"), AbatementValue: get("abatement_value"), PreviewDate: get("preview_date")}
}

// readPaymentForm checks the new-charge form by the API's rules.
func (d *Dashboard) readPaymentForm(c *fiber.Ctx, f *views.PaymentForm) (store.NewPayment, bool) {
	in := store.NewPayment{ExpiresIn: store.DefaultExpiresIn * time.Second, Metadata: map[string]string{}}
	switch cents, ok := pix.ParseBRL(f.Amount); {
	case !ok:
		f.Errors["amount"] = t(c, "form.amount_format")
	case cents < store.MinAmountCents:
		f.Errors["amount"] = t(c, "form.amount_too_small")
	case cents > store.MaxAmountCents:
		f.Errors["amount"] = t(c, "form.amount_too_large", "Max", pix.FormatBRL(store.MaxAmountCents))
	default:
		in.AmountCents = cents
	}
	for _, choice := range views.ExpiryChoices {
		if choice.Seconds == f.ExpiresIn {
			secs, _ := time.ParseDuration(choice.Seconds + "s")
			in.ExpiresIn = secs
		}
	}
	if f.Description != "" {
		if len([]rune(f.Description)) > store.MaxDescription {
			f.Errors["description"] = t(c, "form.too_long", "Max", store.MaxDescription)
		}
		in.Description = &f.Description
	}
	if f.ExternalID != "" {
		if !store.ExternalIDPattern.MatchString(f.ExternalID) {
			f.Errors["external_id"] = t(c, "form.external_id")
		}
		in.ExternalID = &f.ExternalID
	}
	if f.CustomerName != "" || f.CustomerEmail != "" || f.CustomerDoc != "" {
		cust := &store.Customer{Name: f.CustomerName, Email: f.CustomerEmail}
		if cust.Name == "" || len([]rune(cust.Name)) > store.MaxCustomerName {
			f.Errors["customer.name"] = t(c, "form.customer_name")
		}
		if !store.ValidEmail(cust.Email) || len(cust.Email) > store.MaxEmail {
			f.Errors["customer.email"] = t(c, "form.email")
		}
		digits, _, ok := pix.NormalizeDocument(f.CustomerDoc)
		if !ok {
			f.Errors["customer.document"] = t(c, "form.document")
		}
		cust.Document = digits
		in.Customer = cust
	}
	if in.DueTerms = readDueTerms(c, f, in.AmountCents, calendar.Today(d.Store.Now())); in.DueTerms != nil && in.Customer == nil {
		f.Errors["customer.name"] = t(c, "due.error.customer")
	}
	return in, len(f.Errors) == 0
}

// PaymentDetail handles GET /dashboard/payments/{id}.
func (d *Dashboard) PaymentDetail(c *fiber.Ctx) error {
	ref := pathParam(c, "id")
	scope := dashScope(c)
	p, err := d.Store.Payment(c.UserContext(), scope, ref)
	if errors.Is(err, store.ErrNotFound) {
		// A link to a payment of the other mode (a live payment opened while
		// the session shows test data): the mode follows the payment, and
		// the person is told.
		other := store.Scope{AccountID: scope.AccountID, Livemode: !scope.Livemode}
		if _, err := d.Store.Payment(c.UserContext(), other, ref); err == nil {
			return d.switchModeTo(c, other.Livemode, c.OriginalURL())
		}
		return reply.NoSuchPayment(ref)
	}
	if err != nil {
		return err
	}
	m, err := d.paymentDetail(c, p, false)
	if err != nil {
		return err
	}
	m.BackURL, m.BackLabel = "/dashboard/payments", t(c, "payments.title")
	if err := d.splitViews(c, p, &m.PaymentDetail); err != nil {
		return err
	}
	m.CanSimulate = !p.Livemode && may(c, operations.Payments) && p.BRCode != "" &&
		slices.Contains([]string{store.StatusPending, store.StatusExpired, store.StatusCanceled}, p.Status)
	m.CanDispute = !p.Livemode && may(c, operations.Disputes) && p.Status == store.StatusPaid && len(m.Disputes) == 0
	disputeOpen := false
	for i := range m.Disputes {
		m.Disputes[i].CanClose = !p.Livemode && may(c, operations.Disputes) && m.Disputes[i].Status == store.DisputeOpen
		disputeOpen = disputeOpen || m.Disputes[i].Status == store.DisputeOpen
	}
	left, notRefundable := store.Refundable(p, store.OutstandingRefunds(m.RefundsRaw), disputeOpen)
	m.CanRefund = may(c, operations.Refunds) && notRefundable == nil
	m.RefundLeft = pix.FormatBRLInput(left)
	if m.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	if m.History, err = d.objectHistory(c, p.ID.String()); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.PaymentDetailPage(m.PaymentDetail))
}

// paymentModel is the page's model with the refunds as stored, which the
// refund form needs.
type paymentModel struct {
	views.PaymentDetail
	RefundsRaw []store.Refund
}

// paymentDetail builds the detail page of p: its fields, its refunds,
// disputes and received transfers, its PSP steps (live), and its events
// (the disputes' and refunds' included) with each event's deliveries by
// webhook name. support masks the customer's document.
func (d *Dashboard) paymentDetail(c *fiber.Ctx, p *store.Payment, support bool) (paymentModel, error) {
	ctx := c.UserContext()
	scope := p.Scope()
	disputes, err := d.Store.DisputesForPayment(ctx, scope, p.ID)
	if err != nil {
		return paymentModel{}, err
	}
	refunds, err := d.Store.RefundsForPayment(ctx, scope, p.ID)
	if err != nil {
		return paymentModel{}, err
	}
	objects := []string{p.ID.String()}
	for _, dsp := range disputes {
		objects = append(objects, dsp.ID)
	}
	for _, r := range refunds {
		objects = append(objects, r.ID)
	}
	events, err := d.Store.EventsForObjects(ctx, scope, objects)
	if err != nil {
		return paymentModel{}, err
	}
	transfers, err := d.Store.PixNotificationsForPayment(ctx, p.ID)
	if err != nil {
		return paymentModel{}, err
	}
	eventIDs := make([]string, len(events))
	for i := range events {
		eventIDs[i] = events[i].ID
	}
	byEvent, err := d.eventDeliveries(ctx, scope, eventIDs)
	if err != nil {
		return paymentModel{}, err
	}
	m := views.PaymentDetail{
		Nav: d.nav(c, "payments"), ID: p.ID.String(), Status: p.Status, AmountLabel: pix.FormatBRL(p.AmountCents),
		HeadlineLabel: pix.FormatBRL(p.AmountCents), TxID: p.CorrelationID,
		BRCode: p.BRCode, QRCodeURL: p.QRCodeURL, CheckoutURL: p.CheckoutURL,
		CreatedAt: when(c, p.CreatedAt),
		Payable:   p.Payable(), Preparing: p.Status == store.StatusPending && p.BRCode == "",
	}
	disputed := slices.ContainsFunc(disputes, func(d store.Dispute) bool { return d.Status == store.DisputeOpen })
	m.Standing = views.PaymentStanding(p.Status, p.AmountRefundedCents, disputed)
	money := views.PaymentMoney{AmountCents: p.AmountCents, Paid: p.PaidAt != nil, FeeCents: p.FeeCents,
		FeeRefundedCents: p.FeeRefundedCents, RefundedCents: p.AmountRefundedCents, NetCents: p.NetCents()}
	if money.Paid {
		money.ReceivedCents = p.ReceivedCents()
		m.HeadlineLabel = pix.FormatBRL(money.ReceivedCents)
		if parts, ok := p.PaidParts(); ok {
			money.Parts = &parts
		}
	}
	for _, dsp := range disputes {
		if dsp.Status == store.DisputeOpen {
			money.HeldCents += dsp.AmountCents
		}
	}
	m.Money = views.PaymentMoneyLines(ctx, money)
	if p.PaidAt != nil {
		m.PaidAt = when(c, *p.PaidAt)
	}
	// Expiry and link matter only while the charge can be paid: a paid,
	// refunded, expired or canceled one has no use for either.
	if p.Status == store.StatusPending {
		m.ExpiresAt, m.ShowLink = when(c, p.ExpiresAt), p.Payable()
	}
	if p.ExternalID != nil {
		m.ExternalID = *p.ExternalID
	}
	if p.Description != nil {
		m.Description = *p.Description
	}
	if t := p.DueTerms; t != nil {
		m.Due = &views.DueView{DueDate: views.Day(t.Due()), LastPayable: views.Day(t.LastPayableDay()), Terms: views.DueTerms(ctx, t)}
		if p.Status == store.StatusPending {
			m.Due.Today = views.AmountLines(ctx, t, p.AmountDue(calendar.Today(d.Store.Now())))
		}
	}
	if p.Customer != nil {
		doc := pix.FormatDocument(p.Customer.Document)
		if support {
			doc = pix.MaskDocument(p.Customer.Document)
		}
		m.Customer = &views.CustomerView{Name: p.Customer.Name, Email: p.Customer.Email, Document: doc}
		if p.Customer.Phone != nil {
			m.Customer.Phone = *p.Customer.Phone
		}
	}
	for k, v := range p.Metadata {
		m.Metadata = append(m.Metadata, views.KV{Key: k, Value: v})
	}
	sort.Slice(m.Metadata, func(i, j int) bool { return m.Metadata[i].Key < m.Metadata[j].Key })
	for _, e := range events {
		m.Events = append(m.Events, views.EventView{ID: e.ID, Type: e.Type, At: when(c, e.CreatedAt), Deliveries: byEvent[e.ID]})
	}
	for _, dsp := range disputes {
		m.Disputes = append(m.Disputes, d.disputeView(c, &dsp, support))
	}
	for _, r := range refunds {
		v := views.RefundView{ID: r.ID, AmountLabel: pix.FormatBRL(r.AmountCents), Reason: r.Reason, Status: r.Status,
			At: when(c, r.CreatedAt)}
		if r.FailureReason != nil {
			v.FailureReason = *r.FailureReason
		}
		m.Refunds = append(m.Refunds, v)
	}
	mayReturn := !support && may(c, operations.Refunds)
	for _, tr := range transfers {
		v := views.TransferView{EndToEndID: tr.EndToEndID, AmountLabel: pix.FormatBRL(tr.AmountCents),
			Outcome: tr.Outcome, At: when(c, tr.ReceivedAt)}
		if tr.ReturnStatus != nil {
			v.ReturnStatus = *tr.ReturnStatus
		}
		if tr.ReturnFailure != nil {
			v.ReturnFailure = *tr.ReturnFailure
		}
		v.CanReturn = mayReturn && tr.Returnable()
		m.Transfers = append(m.Transfers, v)
		objects = append(objects, tr.EndToEndID)
	}
	if p.Livemode {
		if m.PSPSteps, err = d.pspSteps(c, objects); err != nil {
			return paymentModel{}, err
		}
	}
	// Something under way (a refund, the charge's registration, a call to
	// the PSP): the page follows it until it ends.
	m.Nav.Pending = m.Preparing ||
		slices.ContainsFunc(m.Transfers, func(t views.TransferView) bool { return t.ReturnStatus == store.TransferReturnPending }) ||
		slices.ContainsFunc(refunds, func(r store.Refund) bool { return r.Status == store.RefundPending }) ||
		slices.ContainsFunc(m.PSPSteps, func(s views.PSPStep) bool { return s.Status == store.CallPending })
	return paymentModel{PaymentDetail: m, RefundsRaw: refunds}, nil
}

// disputeView is dsp as its payment's page shows it: its money, stage and
// deadlines, its defense with its files (support staff download them from
// the console), and the defense form to whom may answer it while it can be.
func (d *Dashboard) disputeView(c *fiber.Ctx, dsp *store.Dispute, support bool) views.DisputeView {
	v := views.DisputeView{ID: dsp.ID, Status: dsp.Status, Stage: dsp.Stage, Reason: dsp.Reason, AmountLabel: pix.FormatBRL(dsp.AmountCents),
		ReportedLabel: pix.FormatBRL(dsp.AmountReportedCents), OpenedAt: when(c, dsp.CreatedAt), RespondBy: when(c, dsp.RespondBy),
		AnalysisDeadline: when(c, dsp.AnalysisDeadline), ReturnDeadline: when(c, dsp.ReturnDeadline)}
	if dsp.PSPReference != nil {
		v.InfractionID = *dsp.PSPReference
	}
	if dsp.ClosedAt != nil {
		v.ClosedAt = when(c, *dsp.ClosedAt)
	}
	if dsp.DefendedAt != nil {
		v.Defense = &views.DefenseView{Text: *dsp.DefenseText, SubmittedAt: when(c, *dsp.DefendedAt)}
		base := "/dashboard/disputes/"
		if support {
			base = "/dashboard/support/disputes/"
		}
		for _, e := range dsp.Evidence {
			v.Defense.Files = append(v.Defense.Files, views.EvidenceLink{Name: e.FileName, URL: base + dsp.ID + "/evidence/" + e.ID,
				SizeLabel: byteSize(int64(e.SizeBytes))})
		}
	}
	v.CanDefend = !support && may(c, operations.Disputes) && dsp.DefenseRefusal(d.Store.Now()) == nil
	return v
}

// RefundPayment handles POST /dashboard/payments/{id}/refund: the amount
// typed (all that is left by default) goes back to the payer, after a
// confirmation that says how much, in words, and to whom.
func (d *Dashboard) RefundPayment(c *fiber.Ctx) error {
	ref := pathParam(c, "id")
	back := "/dashboard/payments/" + ref
	scope := dashScope(c)
	ctx := c.UserContext()
	p, err := d.payment(ctx, scope, ref)
	if err != nil {
		return err
	}
	cents, ok := pix.ParseBRL(c.FormValue("amount"))
	if !ok || cents < 1 {
		return d.noticeOrErr(c, back, reply.InvalidParam("amount_format", "amount", "bad amount"))
	}
	if !confirmedOnce(c) {
		// Asked only for a refund that would be made: an impossible one is
		// refused now, in words, not after the person confirmed.
		if err := d.Ops.CheckRefund(ctx, request.Actor(c), scope, ref, store.NewRefund{AmountCents: cents}); err != nil {
			return d.noticeOrErr(c, back, reply.Refund(err, ref))
		}
		lines := []views.ConfirmLine{
			{Label: t(c, "field.amount"), Value: pix.FormatBRL(cents)},
			{Label: t(c, "confirm.in_words"), Value: pix.AmountInWords(cents, views.LocaleOf(ctx).Lang)},
			{Label: t(c, "confirm.payment"), Value: pix.FormatBRL(p.AmountCents) + orderSuffix(p)},
		}
		if p.Customer != nil {
			lines = append(lines, views.ConfirmLine{Label: t(c, "confirm.to"), Value: p.Customer.Name + " · " + pix.FormatDocument(p.Customer.Document)})
		} else {
			lines = append(lines, views.ConfirmLine{Label: t(c, "confirm.to"), Value: t(c, "refund.to_payer")})
		}
		warning := t(c, "refund.warning_test")
		if p.Livemode {
			warning = t(c, "refund.warning_live")
		}
		return d.confirm(c, "payments", views.Confirmation{Title: t(c, "refund.confirm_title"), Lines: lines, Warning: warning,
			Fields:    []views.Field{{Name: "amount", Value: pix.FormatBRLInput(cents)}, newConfirmToken()},
			Button:    t(c, "refund.confirm_button"),
			CancelURL: back, Danger: true})
	}
	return d.once(c, scope, back, func(ctx context.Context) (outcome, error) {
		r, _, err := d.Ops.RefundPayment(ctx, request.Actor(c), scope, ref, store.NewRefund{AmountCents: cents})
		if err != nil {
			return refusal(c, back, reply.Refund(err, ref))
		}
		notice := t(c, "refund.requested_live", "Amount", pix.FormatBRL(r.AmountCents))
		if r.Status == store.RefundSucceeded {
			notice = t(c, "refund.done", "Amount", pix.FormatBRL(r.AmountCents))
		}
		return outcome{Notice: notice, Location: back}, nil
	})
}

// ReturnTransfer handles POST /dashboard/payments/{id}/transfers/{e2e}/return:
// a received Pix that paid nothing (the wrong amount, a second transfer for
// a paid charge) goes back to the payer in full, after a confirmation that
// says how much, in words.
func (d *Dashboard) ReturnTransfer(c *fiber.Ctx) error {
	ref, e2e := pathParam(c, "id"), pathParam(c, "e2e")
	back := "/dashboard/payments/" + ref
	scope := dashScope(c)
	ctx := c.UserContext()
	p, err := d.payment(ctx, scope, ref)
	if err != nil {
		return err
	}
	n, err := d.Store.PixNotification(ctx, e2e)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (n.PaymentID == nil || *n.PaymentID != p.ID)) {
		return reply.NoSuch("transfer", "e2e", e2e)
	}
	if err != nil {
		return err
	}
	notReturnable := reply.InvalidRequest(http.StatusConflict, "transfer_not_returnable", "%s", t(c, "transfer.not_returnable"))
	if !n.Returnable() {
		return d.noticeOrErr(c, back, notReturnable)
	}
	if !confirmedOnce(c) {
		lines := []views.ConfirmLine{
			{Label: t(c, "field.amount"), Value: pix.FormatBRL(n.AmountCents)},
			{Label: t(c, "confirm.in_words"), Value: pix.AmountInWords(n.AmountCents, views.LocaleOf(ctx).Lang)},
			{Label: t(c, "field.e2e"), Value: n.EndToEndID},
			{Label: t(c, "confirm.to"), Value: t(c, "refund.to_payer")},
		}
		return d.confirm(c, "payments", views.Confirmation{Title: t(c, "transfer.return_confirm_title"), Lines: lines,
			Warning: t(c, "transfer.return_warning"), Fields: []views.Field{newConfirmToken()},
			Button: t(c, "transfer.return_button"), CancelURL: back, Danger: true})
	}
	return d.once(c, scope, back, func(ctx context.Context) (outcome, error) {
		if _, err := d.Ops.ReturnTransfer(ctx, request.Actor(c), &scope, e2e); err != nil {
			if errors.Is(err, store.ErrTransferNotReturnable) || errors.Is(err, store.ErrNotFound) {
				return refusal(c, back, notReturnable)
			}
			return refusal(c, back, reply.Refusal(err))
		}
		return outcome{Notice: t(c, "transfer.return_requested", "Amount", pix.FormatBRL(n.AmountCents)), Location: back}, nil
	})
}

// payment is the scope's payment ref names; none is the 404 a person reads.
func (d *Dashboard) payment(ctx context.Context, scope store.Scope, ref string) (*store.Payment, error) {
	p, err := d.Store.Payment(ctx, scope, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuchPayment(ref)
	}
	return p, err
}

// orderSuffix names p's order after its amount, when it has one.
func orderSuffix(p *store.Payment) string {
	switch {
	case p.ExternalID != nil:
		return " · " + *p.ExternalID
	case p.Description != nil:
		return " · " + *p.Description
	}
	return ""
}

// SimulateDispute handles POST /dashboard/payments/{id}/dispute in test
// mode: the payer's bank opens a PIX MED claim.
func (d *Dashboard) SimulateDispute(c *fiber.Ctx) error {
	scope := dashScope(c)
	ref := pathParam(c, "id")
	if _, err := d.Ops.SimulateDispute(c.UserContext(), request.Actor(c), scope, ref, store.DisputeReport{Reason: store.DisputeReasons[0]}); err != nil {
		if errors.Is(err, operations.ErrTestModeOnly) {
			return reply.Refusal(err) // no page offers it: a forged request
		}
		return d.noticeOrErr(c, "/dashboard/payments/"+ref, reply.OpenDispute(err, ref))
	}
	return c.Redirect("/dashboard/payments/"+ref, http.StatusSeeOther)
}

// SimulateDisputeOutcome handles POST /dashboard/disputes/{id}/{won|lost}
// in test mode, and returns to the disputed payment.
func (d *Dashboard) SimulateDisputeOutcome(c *fiber.Ctx) error {
	scope := dashScope(c)
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
	if _, err := d.Ops.SimulateDisputeOutcome(c.UserContext(), request.Actor(c), scope, id, status); err != nil {
		if errors.Is(err, operations.ErrTestModeOnly) {
			return reply.Refusal(err) // no page offers it: a forged request
		}
		return d.noticeOrErr(c, back, reply.Dispute(err, id))
	}
	return c.Redirect(back, http.StatusSeeOther)
}

// SimulatePayment handles POST /dashboard/payments/{id}/simulate: in test
// mode, the payment is confirmed as the PSP would.
func (d *Dashboard) SimulatePayment(c *fiber.Ctx) error {
	ref := pathParam(c, "id")
	p, err := d.Ops.SimulatePayment(c.UserContext(), request.Actor(c), dashScope(c), ref)
	if err != nil {
		return reply.PaymentTransition(err, ref, store.StatusPaid)
	}
	return c.Redirect("/dashboard/payments/"+p.ID.String(), http.StatusSeeOther)
}

// DefendDispute handles POST /dashboard/disputes/{id}/defense: the
// merchant's answer from the dispute's payment page, its text and files,
// by the operation the API uses; back to the page with what became of it.
func (d *Dashboard) DefendDispute(c *fiber.Ctx) error {
	scope := dashScope(c)
	id := pathParam(c, "id")
	dsp, err := d.Store.Dispute(c.UserContext(), scope, id)
	if err != nil {
		return reply.Dispute(err, id)
	}
	back := "/dashboard/payments/" + dsp.PaymentID.String()
	in, apiErr := request.Defense(c)
	if apiErr != nil {
		return d.noticeOrErr(c, back, apiErr)
	}
	if _, err := d.Ops.DefendDispute(c.UserContext(), request.Actor(c), scope, id, in); err != nil {
		// What the form got wrong, in the page's words, every one of it.
		if fields := map[string]string{}; refusedFields(c, err, fields) {
			var said []string
			for _, field := range []string{"text", "evidence"} {
				if words, ok := fields[field]; ok {
					said = append(said, words)
				}
			}
			return d.show(c, outcome{Notice: strings.Join(said, " "), Error: true, Location: back + "#dispute-" + id})
		}
		return d.noticeOrErr(c, back, reply.DefendDispute(err, id))
	}
	if err := d.setFlash(c, flashNotice, t(c, "dispute.defended")); err != nil {
		return err
	}
	return c.Redirect(back+"#dispute-"+id, http.StatusSeeOther)
}

// DisputeEvidence handles GET /dashboard/disputes/{id}/evidence/{file}:
// one file of the account's dispute's defense.
func (d *Dashboard) DisputeEvidence(c *fiber.Ctx) error {
	e, err := d.Store.Evidence(c.UserContext(), dashScope(c), pathParam(c, "id"), pathParam(c, "file"))
	if err != nil {
		return reply.Evidence(err, pathParam(c, "file"))
	}
	return reply.EvidenceFile(c, e.FileName, e.ContentType, e.Content)
}

// splitViews puts p's parts on its page: each account's name, its rule and
// what it got, and what p's own account keeps of the net.
func (d *Dashboard) splitViews(c *fiber.Ctx, p *store.Payment, m *views.PaymentDetail) error {
	parts := p.SplitParts()
	var given int64
	for i, s := range p.Splits {
		v := views.SplitView{AccountID: s.Account, AccountName: s.Account, PartLabel: "—"}
		if acct, err := d.Store.Account(c.UserContext(), s.Account); err == nil {
			v.AccountName = acct.Name
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		switch {
		case s.AmountCents != nil:
			v.Rule = pix.FormatBRL(*s.AmountCents)
		case s.PercentBPS != nil:
			v.Rule = t(c, "splits.percent", "Percent", strings.ReplaceAll(strconv.FormatFloat(float64(*s.PercentBPS)/100, 'f', -1, 64), ".", ","))
		}
		if s.FeePayer == store.FeePayerRecipient {
			v.Rule += " · " + t(c, "splits.bears_fee")
		}
		if parts != nil {
			v.PartLabel, given = pix.FormatBRL(parts[i]), given+parts[i]
		}
		m.Splits = append(m.Splits, v)
	}
	if parts != nil {
		m.KeptLabel = pix.FormatBRL(p.ReceivedCents() - p.FeeCents - given)
	}
	return nil
}
