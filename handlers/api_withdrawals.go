package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/store"
)

const (
	// maxWithdrawalCents caps one payout at R$ 100.000.000,00.
	maxWithdrawalCents  = 10_000_000_000
	maxPixKeyInput      = 100
	maxWithdrawalDesc   = 140 // what a PIX transfer carries as information to the receiver
	maxFailureReasonLen = 500
)

var createWithdrawalFields = []string{"amount_cents", "pix_key", "description", "metadata"}

func noSuchWithdrawal(id string) *Error { return noSuch("withdrawal", "id", id) }

// withdrawalErr maps the store's answer about withdrawal id.
func withdrawalErr(err error, id string) error {
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return noSuchWithdrawal(id)
	case errors.As(err, &invalid):
		return InvalidRequest(http.StatusConflict, "withdrawal_invalid_state", "This withdrawal is %s already.", invalid.Status)
	}
	return err
}

// CreateWithdrawal handles POST /api/v1/withdrawals: a payout of available
// balance to a PIX key. It starts pending; the PSP's callback (or a test
// helper) completes or fails it.
func (a *API) CreateWithdrawal(c *fiber.Ctx) error {
	if apiErr := requireJSON(c); apiErr != nil {
		return apiErr
	}
	w, apiErr := parseCreateWithdrawal(c.Body())
	if apiErr != nil {
		return apiErr
	}
	key := APIKey(c)
	w.AccountID, w.Livemode = key.AccountID, key.Livemode
	if err := a.Store.CreateWithdrawal(c.UserContext(), w); err != nil {
		if errors.Is(err, store.ErrBalanceInsufficient) {
			return balanceInsufficient()
		}
		return err
	}
	return c.Status(http.StatusCreated).JSON(w)
}

func parseCreateWithdrawal(body []byte) (*store.Withdrawal, *Error) {
	o, apiErr := decodeBody(body)
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := o.rejectUnknown(createWithdrawalFields...); apiErr != nil {
		return nil, apiErr
	}
	w := &store.Withdrawal{Metadata: map[string]string{}}
	if !o.present("amount_cents") {
		return nil, o.missing("amount_cents")
	}
	w.AmountCents, apiErr = o.integerBounded("amount_cents", 1, maxWithdrawalCents,
		func() *Error {
			return InvalidParam("amount_too_small", "amount_cents", "amount_cents must be at least 1.")
		},
		func() *Error {
			return InvalidParam("amount_too_large", "amount_cents", "amount_cents must be at most %d.", int64(maxWithdrawalCents))
		})
	if apiErr != nil {
		return nil, apiErr
	}
	if !o.present("pix_key") {
		return nil, o.missing("pix_key")
	}
	raw, apiErr := o.str("pix_key", maxPixKeyInput)
	if apiErr != nil {
		return nil, apiErr
	}
	k, kind, ok := pix.NormalizeKey(raw)
	if !ok {
		return nil, InvalidParam("pix_key_invalid", "pix_key",
			"pix_key must be a CPF or CNPJ with valid check digits, an e-mail, a phone as +5561988880000, or a random key (UUID).")
	}
	w.PixKey, w.PixKeyType = k, string(kind)
	if o.present("description") {
		d, apiErr := o.str("description", maxWithdrawalDesc)
		if apiErr != nil {
			return nil, apiErr
		}
		w.Description = &d
	}
	if o.present("metadata") {
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
	id := pathRef(c, "id")
	w, err := a.Store.Withdrawal(c.UserContext(), scope(c), id)
	if err != nil {
		return withdrawalErr(err, id)
	}
	return c.JSON(w)
}

// TestHelperCompleteWithdrawal handles POST /api/v1/test_helpers/withdrawals/{id}/complete.
func (a *API) TestHelperCompleteWithdrawal(c *fiber.Ctx) error {
	if apiErr := requireTestMode(c); apiErr != nil {
		return apiErr
	}
	if _, apiErr := optionalParams(c); apiErr != nil {
		return apiErr
	}
	return a.finishWithdrawal(c, store.WithdrawalResult{Status: store.WithdrawalCompleted})
}

// TestHelperFailWithdrawal handles POST /api/v1/test_helpers/withdrawals/{id}/fail.
// Body (optional): {"failure_reason": "..."}.
func (a *API) TestHelperFailWithdrawal(c *fiber.Ctx) error {
	if apiErr := requireTestMode(c); apiErr != nil {
		return apiErr
	}
	o, apiErr := optionalParams(c, "failure_reason")
	if apiErr != nil {
		return apiErr
	}
	reason := "Failed by the test helper."
	if o.present("failure_reason") {
		if reason, apiErr = o.str("failure_reason", maxFailureReasonLen); apiErr != nil {
			return apiErr
		}
	}
	return a.finishWithdrawal(c, store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason})
}

func (a *API) finishWithdrawal(c *fiber.Ctx, res store.WithdrawalResult) error {
	id := pathRef(c, "id")
	sc := scope(c)
	w, _, err := a.Store.FinishWithdrawal(c.UserContext(), &sc, id, res)
	if err != nil {
		return withdrawalErr(err, id)
	}
	return c.JSON(w)
}
