package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

var (
	createRefundFields = []string{"payment", "amount_cents", "description"}
	// refundPaymentFields are the optional body of POST /api/v1/payments/{id}/refund.
	refundPaymentFields = []string{"amount_cents", "description"}
)

// CreateRefund handles POST /api/v1/refunds: {"payment", "amount_cents"?,
// "description"?} refunds (part of) a paid payment. The refund is pending:
// in live mode while its devolução is at the PSP (refund.succeeded or
// refund.failed tell how it ended), in test mode until a test helper ends it.
func (a *API) CreateRefund(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, createRefundFields...)
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("payment") {
		return o.Missing("payment")
	}
	ref, apiErr := o.Str("payment", store.MaxExternalID+8)
	if apiErr != nil {
		return apiErr
	}
	in, apiErr := readRefund(o)
	if apiErr != nil {
		return apiErr
	}
	r, err := a.Ops.CreateRefund(c.UserContext(), request.Actor(c), request.Scope(c), ref, in)
	if err != nil {
		return reply.Refund(err, ref)
	}
	c.Location("/api/v1/refunds/" + r.ID)
	return c.Status(http.StatusCreated).JSON(r)
}

// readRefund reads what a refund asks for, the same in POST /api/v1/refunds
// and POST /api/v1/payments/{id}/refund: amount_cents (all that is left
// when absent) and description.
func readRefund(o request.Object) (store.NewRefund, *reply.Error) {
	var in store.NewRefund
	var apiErr *reply.Error
	if o.Present("amount_cents") {
		tooSmall := func() *reply.Error {
			return reply.InvalidParam("amount_too_small", "amount_cents", "amount_cents must be at least 1.")
		}
		tooLarge := func() *reply.Error {
			return reply.InvalidParam("amount_too_large", "amount_cents", "amount_cents is more than a payment can be.")
		}
		if in.AmountCents, apiErr = o.IntegerBounded("amount_cents", 1, store.MaxAmountCents, tooSmall, tooLarge); apiErr != nil {
			return in, apiErr
		}
	}
	if o.Present("description") {
		d, apiErr := o.Str("description", store.MaxRefundDescription)
		if apiErr != nil {
			return in, apiErr
		}
		in.Description = &d
	}
	return in, nil
}

// ListRefunds handles GET /api/v1/refunds (?payment=<id or external_id>:
// one payment's).
func (a *API) ListRefunds(c *fiber.Ctx) error {
	params, err := parseIDList(c, "refund", store.RefundStatuses, func(ctx context.Context, scope store.Scope, id string) error {
		_, err := a.Store.Refund(ctx, scope, id)
		return err
	}, "payment")
	if err != nil {
		return err
	}
	if ref := c.Query("payment"); ref != "" {
		// A payment's refunds, named by its id or its external_id.
		p, err := a.Store.Payment(c.UserContext(), params.Scope, ref)
		if errors.Is(err, store.ErrNotFound) {
			return reply.InvalidParam("resource_missing", "payment", "No such payment: '%s'", reply.Truncate(ref))
		}
		if err != nil {
			return err
		}
		params.PaymentID = &p.ID
	}
	page, hasMore, err := a.Store.ListRefunds(c.UserContext(), params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Refund]{Object: "list", URL: "/api/v1/refunds", HasMore: hasMore, Data: pointers(page)})
}

// GetRefund handles GET /api/v1/refunds/{id}.
func (a *API) GetRefund(c *fiber.Ctx) error {
	id, err := refundID(c)
	if err != nil {
		return err
	}
	r, err := a.Store.Refund(c.UserContext(), request.Scope(c), id)
	if err != nil {
		return reply.RefundState(err, id)
	}
	return c.JSON(r)
}

// TestHelperSucceedRefund handles POST /api/v1/test_helpers/refunds/{id}/succeed.
func (a *API) TestHelperSucceedRefund(c *fiber.Ctx) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	return a.settleRefund(c, store.RefundResult{Status: store.RefundSucceeded})
}

// TestHelperFailRefund handles POST /api/v1/test_helpers/refunds/{id}/fail:
// the payer's bank did not take the money back; it returns to the balance.
// Body (optional): {"failure_reason": "..."}.
func (a *API) TestHelperFailRefund(c *fiber.Ctx) error {
	o, apiErr := request.OptionalBody(c, "failure_reason")
	if apiErr != nil {
		return apiErr
	}
	reason := "Failed by the test helper."
	if o.Present("failure_reason") {
		if reason, apiErr = o.Str("failure_reason", store.MaxFailureReason); apiErr != nil {
			return apiErr
		}
	}
	return a.settleRefund(c, store.RefundResult{Status: store.RefundFailed, FailureReason: &reason})
}

func (a *API) settleRefund(c *fiber.Ctx, res store.RefundResult) error {
	id, err := refundID(c)
	if err != nil {
		return err
	}
	r, err := a.Ops.SimulateRefundEnd(c.UserContext(), request.Actor(c), request.Scope(c), id, res)
	if err != nil {
		return reply.RefundState(err, id)
	}
	return c.JSON(r)
}
