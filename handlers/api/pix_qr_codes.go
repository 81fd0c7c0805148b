package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
)

var createQRCodeFields = []string{"amount_cents", "description", "expires_at"}

// CreatePixQRCode handles POST /api/v1/pix_qr_codes: a static code, a
// fixed amount or one the payer types, paid any number of times.
func (a *API) CreatePixQRCode(c *fiber.Ctx) error {
	o, apiErr := request.OptionalBody(c, createQRCodeFields...)
	if apiErr != nil {
		return apiErr
	}
	var in operations.QRCodeInput
	if o.Present("amount_cents") {
		if in.AmountCents, apiErr = o.ClaimedCents("amount_cents"); apiErr != nil {
			return apiErr
		}
	}
	if o.Present("description") {
		d, apiErr := o.Str("description", store.MaxQRCodeDescription*2)
		if apiErr != nil {
			return apiErr
		}
		in.Description = &d
	}
	if o.Present("expires_at") {
		if in.ExpiresAt, apiErr = expiresAt(o); apiErr != nil {
			return apiErr
		}
	}
	q, err := a.Ops.CreatePixQRCode(c.UserContext(), request.Actor(c), request.Scope(c), in)
	if err != nil {
		return reply.Refusal(err)
	}
	return c.Status(http.StatusCreated).JSON(q)
}

// ListPixQRCodes handles GET /api/v1/pix_qr_codes.
func (a *API) ListPixQRCodes(c *fiber.Ctx) error {
	params, err := parseIDList(c, "pix_qr_code", []string{store.QRCodeActive, store.QRCodeDisabled}, func(ctx context.Context, scope store.Scope, id string) error {
		_, err := a.Store.PixQRCodeOf(ctx, scope, id)
		return err
	})
	if err != nil {
		return err
	}
	page, hasMore, err := a.Store.ListPixQRCodes(c.UserContext(), params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.PixQRCode]{Object: "list", URL: "/api/v1/pix_qr_codes", HasMore: hasMore, Data: pointers(page)})
}

// DeactivatePixQRCode handles POST /api/v1/pix_qr_codes/{id}/deactivate:
// it takes no more payments (a code disabled already answers as it is).
func (a *API) DeactivatePixQRCode(c *fiber.Ctx) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	q, err := a.Ops.DeactivatePixQRCode(c.UserContext(), request.Actor(c), request.Scope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("pix_qr_code", "id", id)
	}
	if err != nil {
		return reply.Refusal(err)
	}
	return c.JSON(q)
}

// GetPixQRCode handles GET /api/v1/pix_qr_codes/{id}.
func (a *API) GetPixQRCode(c *fiber.Ctx) error {
	id := c.Params("id")
	q, err := a.Store.PixQRCodeOf(c.UserContext(), request.Scope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("pix_qr_code", "id", id)
	}
	if err != nil {
		return err
	}
	return c.JSON(q)
}

// TestHelperPayPixQRCode handles POST
// /api/v1/test_helpers/pix_qr_codes/{id}/pay {"amount_cents"}: a payer
// pays the test static code (a fixed one's amount when left out).
func (a *API) TestHelperPayPixQRCode(c *fiber.Ctx) error {
	o, apiErr := request.OptionalBody(c, "amount_cents")
	if apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	scope := request.Scope(c)
	q, err := a.Store.PixQRCodeOf(c.UserContext(), scope, id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("pix_qr_code", "id", id)
	}
	if err != nil {
		return err
	}
	var amount int64
	switch {
	case o.Present("amount_cents"):
		if amount, apiErr = o.ClaimedCents("amount_cents"); apiErr != nil {
			return apiErr
		}
	case q.AmountCents != nil:
		amount = *q.AmountCents
	default:
		return o.Missing("amount_cents")
	}
	p, err := a.Ops.SimulatePixQRCodePayment(c.UserContext(), request.Actor(c), scope, id, amount)
	if err != nil {
		return reply.PayQRCode(err, id)
	}
	return c.Status(http.StatusCreated).JSON(p)
}
