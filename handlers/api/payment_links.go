package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
)

var createLinkFields = []string{"description", "amount_cents", "min_amount_cents", "max_amount_cents", "collect", "max_uses", "expires_at"}

// CreatePaymentLink handles POST /api/v1/payment_links: a hosted page that
// makes a charge per payer, a fixed amount or one the payer chooses.
func (a *API) CreatePaymentLink(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, createLinkFields...)
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("description") {
		return o.Missing("description")
	}
	var in operations.PaymentLinkInput
	if in.Description, apiErr = o.Str("description", store.MaxLinkDescription*2); apiErr != nil {
		return apiErr
	}
	for _, f := range []struct {
		name string
		dst  **int64
	}{{"amount_cents", &in.AmountCents}, {"min_amount_cents", &in.MinAmountCents}, {"max_amount_cents", &in.MaxAmountCents}, {"max_uses", &in.MaxUses}} {
		if !o.Present(f.name) {
			continue
		}
		v, apiErr := o.ClaimedCents(f.name)
		if apiErr != nil {
			return apiErr
		}
		*f.dst = &v
	}
	if o.Present("collect") {
		if err := json.Unmarshal(o.Raw("collect"), &in.Collect); err != nil || in.Collect == nil {
			return o.WrongType("collect", "an array of strings")
		}
	}
	if o.Present("expires_at") {
		if in.ExpiresAt, apiErr = expiresAt(o); apiErr != nil {
			return apiErr
		}
	}
	l, err := a.Ops.CreatePaymentLink(c.UserContext(), request.Actor(c), request.Scope(c), in)
	if err != nil {
		return reply.Refusal(err)
	}
	return c.Status(http.StatusCreated).JSON(l)
}

// expiresAt reads an object's expires_at, an RFC 3339 time.
func expiresAt(o request.Object) (*time.Time, *reply.Error) {
	s, apiErr := o.Str("expires_at", 64)
	if apiErr != nil {
		return nil, apiErr
	}
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, reply.InvalidParam("parameter_invalid", "expires_at", "expires_at must be a time in RFC 3339 (2026-12-31T23:59:59-03:00).")
	}
	return &at, nil
}

// ListPaymentLinks handles GET /api/v1/payment_links.
func (a *API) ListPaymentLinks(c *fiber.Ctx) error {
	params, err := parseIDList(c, "payment_link", []string{store.LinkActive, store.LinkDisabled}, func(ctx context.Context, scope store.Scope, id string) error {
		_, err := a.Store.PaymentLinkOf(ctx, scope, id)
		return err
	})
	if err != nil {
		return err
	}
	page, hasMore, err := a.Store.ListPaymentLinks(c.UserContext(), params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.PaymentLink]{Object: "list", URL: "/api/v1/payment_links", HasMore: hasMore, Data: pointers(page)})
}

// GetPaymentLink handles GET /api/v1/payment_links/{id}.
func (a *API) GetPaymentLink(c *fiber.Ctx) error {
	id := c.Params("id")
	l, err := a.Store.PaymentLinkOf(c.UserContext(), request.Scope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("payment_link", "id", id)
	}
	if err != nil {
		return err
	}
	return c.JSON(l)
}

// DeactivatePaymentLink handles POST /api/v1/payment_links/{id}/deactivate:
// its page takes no more payers (a link disabled already answers as it is).
func (a *API) DeactivatePaymentLink(c *fiber.Ctx) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	l, err := a.Ops.DeactivatePaymentLink(c.UserContext(), request.Actor(c), request.Scope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("payment_link", "id", id)
	}
	if err != nil {
		return reply.Refusal(err)
	}
	return c.JSON(l)
}
