package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix/calendar"
	"payments/store"
)

// CreatePayment handles POST /api/v1/payments.
func (a *API) CreatePayment(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, createPaymentFields...)
	if apiErr != nil {
		return apiErr
	}
	in, apiErr := parseCreatePayment(o, calendar.Today(a.Store.Now()))
	if apiErr != nil {
		return apiErr
	}
	key := request.APIKey(c)
	idem := request.IdempotencyOf(c)
	p, replayed, err := a.Ops.CreatePayment(c.UserContext(), request.Actor(c), key.Account, key.Livemode, in, idem.Key, idem.Hash)
	if err != nil {
		return createErr(err, in)
	}
	if key.Livemode {
		return a.awaitCharge(c, p, replayed)
	}
	c.Location("/api/v1/payments/" + p.ID.String())
	if body, ok := p.CreatedJSON(); ok {
		// Its event's JSON, not the payment written a second time.
		c.Type("json")
		return c.Status(http.StatusCreated).SendString(body)
	}
	return c.Status(http.StatusCreated).JSON(p)
}

func createErr(err error, in store.NewPayment) error {
	switch {
	case errors.Is(err, operations.ErrLiveModeOff):
		return reply.LiveModeOff()
	case errors.Is(err, store.ErrConflict):
		return &reply.Error{Status: http.StatusConflict, Type: reply.TypeInvalidRequest, Code: "external_id_taken", Param: "external_id",
			Message: fmt.Sprintf("A payment with external_id '%s' already exists.", *in.ExternalID)}
	case errors.Is(err, store.ErrIdempotencyMismatch):
		return &reply.Error{Status: http.StatusUnprocessableEntity, Type: reply.TypeIdempotency, Code: "idempotency_key_reused",
			Message: "This Idempotency-Key was already used with a different request. Use a new key for a new request."}
	}
	return err
}

// awaitCharge answers a live charge's creation: the payment and the call
// that registers it at the PSP were stored at once, and the request waits
// (up to ChargeWait) for the PSP's BR Code. Registered: 201 with the PSP's code.
// Refused by the PSP: 502, and the payment is canceled. Still registering:
// 503 with Retry-After, naming the payment, which stays unpayable (no BR
// Code) until the PSP has it; a retry with the same Idempotency-Key picks up
// the same payment and answers as soon as it is registered.
func (a *API) awaitCharge(c *fiber.Ctx, p *store.Payment, replayed bool) error {
	if replayed && p.ChargeState == store.ChargeRegistering {
		// Someone is waiting on this charge: try the PSP again now rather
		// than after the retry's backoff (at most once per retry of theirs).
		if err := a.Ops.HurryCharge(c.UserContext(), request.Actor(c), p); err != nil {
			return err
		}
	}
	p, err := a.Store.WaitForCharge(c.UserContext(), p.ID, time.Now().Add(a.chargeWait()))
	if err != nil {
		return err
	}
	switch p.ChargeState {
	case store.ChargeRegistered:
		if replayed {
			// The key's first request created it (the web layer left the
			// key to this handler: see web's idempotency).
			c.Set("Idempotent-Replayed", "true")
		}
		c.Location("/api/v1/payments/" + p.ID.String())
		return c.Status(http.StatusCreated).JSON(p)
	case store.ChargeFailed:
		return &reply.Error{Status: http.StatusBadGateway, Type: reply.TypeAPI, Code: "psp_refused",
			Message: fmt.Sprintf("The payment service provider refused the charge; payment %s is canceled and will not be payable.", p.ID)}
	}
	c.Set(fiber.HeaderRetryAfter, "2")
	return &reply.Error{Status: http.StatusServiceUnavailable, Type: reply.TypeAPI, Code: "psp_unavailable",
		Message: fmt.Sprintf("The payment service provider has not registered the charge yet: it is payment %s, not payable until it is. "+
			"Retry with the same Idempotency-Key to get it when it is ready, or GET /api/v1/payments/%s.", p.ID, p.ID)}
}

// chargeWait is how long a live creation waits for the PSP (8 s unless configured).
func (a *API) chargeWait() time.Duration {
	if a.ChargeWait <= 0 {
		return 8 * time.Second
	}
	return a.ChargeWait
}

// GetPayment handles GET /api/v1/payments/{id_or_external_id}.
func (a *API) GetPayment(c *fiber.Ctx) error {
	p, err := a.pathPayment(c)
	if err != nil {
		return err
	}
	return c.JSON(p)
}

// pathPayment is the payment the path's {id_or_external_id} names in the
// key's scope; another's, or none, is 404.
func (a *API) pathPayment(c *fiber.Ctx) (*store.Payment, error) {
	ref, err := paymentRef(c)
	if err != nil {
		return nil, err
	}
	p, err := a.Store.Payment(c.UserContext(), request.Scope(c), ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuchPayment(ref)
	}
	return p, err
}

// amountDueBody is GET /api/v1/payments/{id}/amount_due's answer.
type amountDueBody struct {
	Object         string `json:"object"`
	Date           string `json:"date"`
	AmountCents    int64  `json:"amount_cents"`
	AbatementCents int64  `json:"abatement_cents"`
	DiscountCents  int64  `json:"discount_cents"`
	FineCents      int64  `json:"fine_cents"`
	InterestCents  int64  `json:"interest_cents"`
	AmountDueCents int64  `json:"amount_due_cents"`
	Payable        bool   `json:"payable"`
}

// GetAmountDue handles GET /api/v1/payments/{id}/amount_due?date=YYYY-MM-DD:
// what the payer owes on date (today, Brasília, by default), part by part,
// computed as the checkout, the PSP and the payer's bank compute it
// (pix/cobv). payable says whether the charge can be paid that day.
func (a *API) GetAmountDue(c *fiber.Ctx) error {
	date := calendar.Today(a.Store.Now())
	for key, value := range c.Queries() {
		if key != "date" {
			return reply.InvalidParam("parameter_unknown", key, "Received unknown parameter: %s. Allowed parameters: date.", key)
		}
		d, err := calendar.ParseDate(value)
		if err != nil {
			return reply.InvalidParam("parameter_invalid", "date", "date must be a date written YYYY-MM-DD.")
		}
		date = d
	}
	p, err := a.pathPayment(c)
	if err != nil {
		return err
	}
	b := p.AmountDue(date)
	return c.JSON(amountDueBody{Object: "amount_due", Date: date.String(), AmountCents: b.AmountCents, AbatementCents: b.AbatementCents,
		DiscountCents: b.DiscountCents, FineCents: b.FineCents, InterestCents: b.InterestCents, AmountDueCents: b.AmountDueCents,
		Payable: b.Payable})
}

// CancelPayment handles DELETE /api/v1/payments/{id_or_external_id}.
func (a *API) CancelPayment(c *fiber.Ctx) error {
	ref, err := paymentRef(c)
	if err != nil {
		return err
	}
	p, err := a.Ops.CancelPayment(c.UserContext(), request.Actor(c), request.Scope(c), ref)
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return reply.NoSuchPayment(ref)
	case errors.As(err, &invalid):
		return &reply.Error{Status: http.StatusConflict, Type: reply.TypeInvalidRequest, Code: "payment_not_cancelable",
			Message: fmt.Sprintf("This payment is %s; only pending payments can be canceled.", invalid.Status)}
	case err != nil:
		return err
	}
	return c.JSON(p)
}

// RefundPayment handles POST /api/v1/payments/{id_or_external_id}/refund: a
// paid payment is refunded, in full or by the optional {"amount_cents",
// "description"} (the same refund as POST /api/v1/refunds), and answered.
func (a *API) RefundPayment(c *fiber.Ctx) error {
	ref, err := paymentRef(c)
	if err != nil {
		return err
	}
	o, apiErr := request.OptionalBody(c, refundPaymentFields...)
	if apiErr != nil {
		return apiErr
	}
	in, apiErr := readRefund(o)
	if apiErr != nil {
		return apiErr
	}
	_, p, err := a.Ops.RefundPayment(c.UserContext(), request.Actor(c), request.Scope(c), ref, in)
	if err != nil {
		return reply.Refund(err, ref)
	}
	return c.JSON(operations.PaymentAnswer(request.Actor(c), p))
}

// listPaymentsQuery are the query parameters of GET /api/v1/payments.
var listPaymentsQuery = []string{"limit", "status", "created[gte]", "created[lte]", "due_date[gte]", "due_date[lte]", "subscription",
	"pix_qr_code", "payment_link", "starting_after", "ending_before"}

// ListPayments handles GET /api/v1/payments.
func (a *API) ListPayments(c *fiber.Ctx) error {
	params, apiErr := parseListPayments(c)
	if apiErr != nil {
		return apiErr
	}
	ctx := c.UserContext()
	for _, cursor := range []struct {
		name string
		id   *uuid.UUID
	}{{"starting_after", params.StartingAfter}, {"ending_before", params.EndingBefore}} {
		if cursor.id == nil {
			continue
		}
		ok, err := a.Store.PaymentExists(ctx, params.Scope, *cursor.id)
		if err != nil {
			return err
		}
		if !ok {
			return reply.InvalidParam("resource_missing", cursor.name, "No such payment: '%s'", cursor.id)
		}
	}
	page, hasMore, err := a.Store.ListPayments(ctx, params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Payment]{Object: "list", URL: "/api/v1/payments", HasMore: hasMore, Data: pointers(page)})
}

func parseListPayments(c *fiber.Ctx) (store.PaymentListParams, *reply.Error) {
	params := store.PaymentListParams{Scope: request.Scope(c)}
	var apiErr *reply.Error
	if params.Limit, params.Status, apiErr = parseListQuery(c, listPaymentsQuery, store.PaymentStatuses); apiErr != nil {
		return params, apiErr
	}
	if params.CreatedGTE, params.CreatedLTE, apiErr = parseCreatedBounds(c); apiErr != nil {
		return params, apiErr
	}
	params.Subscription = c.Query("subscription")
	params.PixQRCode = c.Query("pix_qr_code")
	params.PaymentLink = c.Query("payment_link")
	for _, bound := range []struct {
		name string
		dst  **calendar.Date
	}{{"due_date[gte]", &params.DueGTE}, {"due_date[lte]", &params.DueLTE}} {
		if v := c.Query(bound.name); v != "" {
			d, err := calendar.ParseDate(v)
			if err != nil {
				return params, reply.InvalidParam("parameter_invalid", bound.name, "%s must be a date written YYYY-MM-DD.", bound.name)
			}
			*bound.dst = &d
		}
	}
	for _, cursor := range []struct {
		name string
		dst  **uuid.UUID
	}{{"starting_after", &params.StartingAfter}, {"ending_before", &params.EndingBefore}} {
		v := c.Query(cursor.name)
		if v == "" {
			continue
		}
		id, ok := store.ParsePaymentID(v)
		if !ok {
			return params, reply.InvalidParam("parameter_invalid", cursor.name, "%s must be a payment id.", cursor.name)
		}
		*cursor.dst = &id
	}
	if params.StartingAfter != nil && params.EndingBefore != nil {
		return params, reply.InvalidParam("parameter_invalid", "ending_before", "Use starting_after or ending_before, not both.")
	}
	return params, nil
}
