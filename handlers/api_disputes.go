package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/store"
)

func noSuchDispute(id string) *Error { return noSuch("dispute", "id", id) }

// disputeErr maps the store's answer about dispute id.
func disputeErr(err error, id string) error {
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return noSuchDispute(id)
	case errors.As(err, &invalid):
		return InvalidRequest(http.StatusConflict, "dispute_invalid_state", "This dispute is %s already.", invalid.Status)
	}
	return err
}

// openDisputeErr maps a refused dispute on payment ref.
func openDisputeErr(err error, ref string) error {
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuchPayment(ref)
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_invalid_state",
			Message: fmt.Sprintf("This payment is %s; only paid payments can be disputed.", invalid.Status)}
	case errors.Is(err, store.ErrConflict):
		return InvalidRequest(http.StatusConflict, "dispute_exists", "This payment has been disputed already.")
	}
	return err
}

// ListDisputes handles GET /api/v1/disputes.
func (a *API) ListDisputes(c *fiber.Ctx) error {
	params, err := parseIDList(c, "dispute", store.DisputeStatuses, func(ctx context.Context, scope store.Scope, id string) error {
		_, err := a.Store.Dispute(ctx, scope, id)
		return err
	})
	if err != nil {
		return err
	}
	page, hasMore, err := a.Store.ListDisputes(c.UserContext(), params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Dispute]{Object: "list", URL: "/api/v1/disputes", HasMore: hasMore, Data: pointers(page)})
}

// GetDispute handles GET /api/v1/disputes/{id}.
func (a *API) GetDispute(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	d, err := a.Store.Dispute(c.UserContext(), scope(c), id)
	if err != nil {
		return disputeErr(err, id)
	}
	return c.JSON(d)
}

// TestHelperDispute handles POST /api/v1/test_helpers/payments/{id}/dispute:
// the payer's bank opens a PIX MED claim on a paid payment. Body (optional):
// {"reason": "fraud" | "operational_failure"}, fraud by default.
func (a *API) TestHelperDispute(c *fiber.Ctx) error {
	if apiErr := requireTestMode(c); apiErr != nil {
		return apiErr
	}
	o, apiErr := optionalParams(c, "reason")
	if apiErr != nil {
		return apiErr
	}
	reason := store.DisputeReasons[0]
	if o.present("reason") {
		if reason, apiErr = o.enum("reason", store.DisputeReasons); apiErr != nil {
			return apiErr
		}
	}
	ref := pathRef(c, "ref")
	d, err := a.Store.OpenDispute(c.UserContext(), scope(c), ref, reason)
	if err != nil {
		return openDisputeErr(err, ref)
	}
	return c.Status(http.StatusCreated).JSON(d)
}

// TestHelperWinDispute handles POST /api/v1/test_helpers/disputes/{id}/win.
func (a *API) TestHelperWinDispute(c *fiber.Ctx) error {
	return a.closeDispute(c, store.DisputeWon)
}

// TestHelperLoseDispute handles POST /api/v1/test_helpers/disputes/{id}/lose.
func (a *API) TestHelperLoseDispute(c *fiber.Ctx) error {
	return a.closeDispute(c, store.DisputeLost)
}

func (a *API) closeDispute(c *fiber.Ctx, status string) error {
	if apiErr := requireTestMode(c); apiErr != nil {
		return apiErr
	}
	if _, apiErr := optionalParams(c); apiErr != nil {
		return apiErr
	}
	id := pathRef(c, "id")
	d, err := a.Store.CloseDispute(c.UserContext(), scope(c), id, status)
	if err != nil {
		return disputeErr(err, id)
	}
	return c.JSON(d)
}

// pointers lets a page of rows marshal through their pointer MarshalJSON.
func pointers[T any](rows []T) []*T {
	out := make([]*T, len(rows))
	for i := range rows {
		out[i] = &rows[i]
	}
	return out
}
