package api

import (
	"context"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/pix/calendar"
	"payments/store"
)

// The test-mode helpers under /api/v1/test_helpers: with a test key they
// move objects as the PSP or the payer's bank would, so integrations can be
// tried end to end. Live keys are refused: only test mode may pretend.

// TestHelperPay handles POST /api/v1/test_helpers/payments/{id}/pay: the
// payment is confirmed as the PSP would. Body (optional): {"date":
// "YYYY-MM-DD"}, the day its payer pays (today, Brasília, by default): a
// due-date charge is paid what it owes that day.
func (a *API) TestHelperPay(c *fiber.Ctx) error {
	o, apiErr := request.OptionalBody(c, "date")
	if apiErr != nil {
		return apiErr
	}
	date := calendar.Today(a.Store.Now())
	if o.Present("date") {
		if date, apiErr = parseDate(o, "date"); apiErr != nil {
			return apiErr
		}
	}
	ref, err := paymentRef(c)
	if err != nil {
		return err
	}
	p, err := a.Ops.SimulatePaymentOn(c.UserContext(), request.Actor(c), request.Scope(c), ref, date)
	if err != nil {
		return reply.PaymentTransition(err, ref, store.StatusPaid)
	}
	return c.JSON(p)
}

// parseDate reads a YYYY-MM-DD date field.
func parseDate(o request.Object, name string) (calendar.Date, *reply.Error) {
	s, apiErr := o.Str(name, 10)
	if apiErr != nil {
		return calendar.Date{}, apiErr
	}
	d, err := calendar.ParseDate(s)
	if err != nil {
		return calendar.Date{}, reply.InvalidParam("parameter_invalid", o.Param(name), "%s must be a date written YYYY-MM-DD.", o.Param(name))
	}
	return d, nil
}

// TestHelperExpire handles POST /api/v1/test_helpers/payments/{id}/expire.
func (a *API) TestHelperExpire(c *fiber.Ctx) error {
	return a.movePayment(c, store.StatusExpired, a.Ops.SimulateExpiry)
}

func (a *API) movePayment(c *fiber.Ctx, target string,
	move func(ctx context.Context, who store.Actor, scope store.Scope, ref string) (*store.Payment, error),
) error {
	// It takes no parameters: a body that sends some is refused, not ignored.
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	ref, err := paymentRef(c)
	if err != nil {
		return err
	}
	p, err := move(c.UserContext(), request.Actor(c), request.Scope(c), ref)
	if err != nil {
		return reply.PaymentTransition(err, ref, target)
	}
	return c.JSON(p)
}

// TestHelperDispute handles POST /api/v1/test_helpers/payments/{id}/dispute:
// the payer's bank reports an infração (MED 2.0) on a paid payment. Body
// (optional): {"reason": "fraud" | "coercion" | "operational_failure",
// "amount_cents": what it claims (all that was received by default)}.
func (a *API) TestHelperDispute(c *fiber.Ctx) error {
	o, apiErr := request.OptionalBody(c, "reason", "amount_cents")
	if apiErr != nil {
		return apiErr
	}
	report := store.DisputeReport{Reason: store.DisputeReasons[0]}
	if o.Present("reason") {
		if report.Reason, apiErr = o.Enum("reason", store.DisputeReasons); apiErr != nil {
			return apiErr
		}
	}
	if o.Present("amount_cents") {
		if report.AmountCents, apiErr = o.ClaimedCents("amount_cents"); apiErr != nil {
			return apiErr
		}
	}
	ref, err := paymentRef(c)
	if err != nil {
		return err
	}
	d, err := a.Ops.SimulateDispute(c.UserContext(), request.Actor(c), request.Scope(c), ref, report)
	if err != nil {
		return reply.OpenDispute(err, ref)
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
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	id, err := disputeID(c)
	if err != nil {
		return err
	}
	d, err := a.Ops.SimulateDisputeOutcome(c.UserContext(), request.Actor(c), request.Scope(c), id, status)
	if err != nil {
		return reply.Dispute(err, id)
	}
	return c.JSON(d)
}

// TestHelperCompleteWithdrawal handles POST /api/v1/test_helpers/withdrawals/{id}/complete.
func (a *API) TestHelperCompleteWithdrawal(c *fiber.Ctx) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	return a.finishWithdrawal(c, store.WithdrawalResult{Status: store.WithdrawalCompleted})
}

// TestHelperFailWithdrawal handles POST /api/v1/test_helpers/withdrawals/{id}/fail.
// Body (optional): {"failure_reason": "..."}.
func (a *API) TestHelperFailWithdrawal(c *fiber.Ctx) error {
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
	return a.finishWithdrawal(c, store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason})
}

func (a *API) finishWithdrawal(c *fiber.Ctx, res store.WithdrawalResult) error {
	id, err := withdrawalID(c)
	if err != nil {
		return err
	}
	w, err := a.Ops.SimulateWithdrawalEnd(c.UserContext(), request.Actor(c), request.Scope(c), id, res)
	if err != nil {
		return reply.Withdrawal(err, id)
	}
	return c.JSON(w)
}
