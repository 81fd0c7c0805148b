package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/store"
)

// TestHelperPay handles POST /api/v1/test_helpers/payments/{id}/pay: with a
// test key it confirms the payment as the PSP would.
func (a *API) TestHelperPay(c *fiber.Ctx) error {
	return a.testHelper(c, "paid", a.Store.MarkPaymentPaid)
}

// TestHelperExpire handles POST /api/v1/test_helpers/payments/{id}/expire.
func (a *API) TestHelperExpire(c *fiber.Ctx) error {
	return a.testHelper(c, "expired", a.Store.ExpirePayment)
}

func (a *API) testHelper(c *fiber.Ctx, target string,
	move func(ctx context.Context, scope store.Scope, ref string) (*store.Payment, error),
) error {
	if apiErr := requireTestMode(c); apiErr != nil {
		return apiErr
	}
	ref := pathRef(c, "ref")
	p, err := move(c.UserContext(), scope(c), ref)
	if err != nil {
		return transitionErr(err, ref, target)
	}
	return c.JSON(p)
}

// requireTestMode refuses live keys: test helpers move money as the PSP
// would, which only test mode may pretend.
func requireTestMode(c *fiber.Ctx) *Error {
	if APIKey(c).Livemode {
		return testModeOnly("Test helpers only work with a test mode key (sk_test_...).")
	}
	return nil
}

// testModeOnly is the 403 for a simulation asked for with live data.
func testModeOnly(message string) *Error {
	return &Error{Status: http.StatusForbidden, Type: TypePermission, Code: "test_mode_only", Message: message}
}

// transitionErr maps the store's answer to a refused move of payment ref
// towards status target.
func transitionErr(err error, ref, target string) error {
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuchPayment(ref)
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_invalid_state",
			Message: fmt.Sprintf("This payment is %s and cannot become %s.", invalid.Status, target)}
	}
	return err
}
