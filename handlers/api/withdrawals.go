package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/pix"
	"payments/store"
)

var createWithdrawalFields = []string{"amount_cents", "pix_key", "description", "metadata"}

// CreateWithdrawal handles POST /api/v1/withdrawals: a payout of available
// balance to a PIX key. It starts pending; the PSP's callback (or a test
// helper) completes or fails it.
func (a *API) CreateWithdrawal(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, createWithdrawalFields...)
	if apiErr != nil {
		return apiErr
	}
	w, apiErr := parseCreateWithdrawal(o)
	if apiErr != nil {
		return apiErr
	}
	key := request.APIKey(c)
	w.AccountID, w.Livemode = key.AccountID, key.Livemode
	if err := a.Ops.CreateWithdrawal(c.UserContext(), request.Actor(c), w); err != nil {
		if errors.Is(err, store.ErrBalanceInsufficient) {
			return reply.BalanceInsufficient()
		}
		return reply.Refusal(err)
	}
	return c.Status(http.StatusCreated).JSON(w)
}

func parseCreateWithdrawal(o request.Object) (*store.Withdrawal, *reply.Error) {
	w := &store.Withdrawal{Metadata: map[string]string{}}
	if !o.Present("amount_cents") {
		return nil, o.Missing("amount_cents")
	}
	var apiErr *reply.Error
	w.AmountCents, apiErr = o.IntegerBounded("amount_cents", 1, store.MaxWithdrawalCents,
		func() *reply.Error {
			return reply.InvalidParam("amount_too_small", "amount_cents", "amount_cents must be at least 1.")
		},
		func() *reply.Error {
			return reply.InvalidParam("amount_too_large", "amount_cents", "amount_cents must be at most %d.", int64(store.MaxWithdrawalCents))
		})
	if apiErr != nil {
		return nil, apiErr
	}
	if !o.Present("pix_key") {
		return nil, o.Missing("pix_key")
	}
	raw, apiErr := o.Str("pix_key", store.MaxPixKeyInput)
	if apiErr != nil {
		return nil, apiErr
	}
	k, kind, ok := pix.NormalizeKey(raw)
	if !ok {
		return nil, reply.InvalidParam("pix_key_invalid", "pix_key",
			"pix_key must be a CPF or CNPJ with valid check digits, an e-mail, a phone as +5561988880000, or a random key (UUID).")
	}
	w.PixKey, w.PixKeyType = k, string(kind)
	if o.Present("description") {
		d, apiErr := o.Str("description", store.MaxWithdrawalDescription)
		if apiErr != nil {
			return nil, apiErr
		}
		w.Description = &d
	}
	if o.Present("metadata") {
		if w.Metadata, apiErr = parseMetadata(o); apiErr != nil {
			return nil, apiErr
		}
	}
	return w, nil
}

// ListWithdrawals handles GET /api/v1/withdrawals.
func (a *API) ListWithdrawals(c *fiber.Ctx) error {
	params, err := parseIDList(c, "withdrawal", store.WithdrawalStatuses, func(ctx context.Context, scope store.Scope, id string) error {
		_, err := a.Store.Withdrawal(ctx, scope, id)
		return err
	})
	if err != nil {
		return err
	}
	page, hasMore, err := a.Store.ListWithdrawals(c.UserContext(), params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Withdrawal]{Object: "list", URL: "/api/v1/withdrawals", HasMore: hasMore, Data: pointers(page)})
}

// GetWithdrawal handles GET /api/v1/withdrawals/{id}.
func (a *API) GetWithdrawal(c *fiber.Ctx) error {
	id, err := withdrawalID(c)
	if err != nil {
		return err
	}
	w, err := a.Store.Withdrawal(c.UserContext(), request.Scope(c), id)
	if err != nil {
		return reply.Withdrawal(err, id)
	}
	return c.JSON(w)
}
