package api

import (
	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
)

// ContestWithdrawal handles POST /api/v1/withdrawals/{id}/contest
// {"reason", "description"}: MED 2.0 for money sent.
func (a *API) ContestWithdrawal(c *fiber.Ctx) error {
	id, err := withdrawalID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.Body(c, "reason", "description")
	if apiErr != nil {
		return apiErr
	}
	var in operations.ContestInput
	for name, into := range map[string]*string{"reason": &in.Reason, "description": &in.Description} {
		if o.Present(name) {
			if *into, apiErr = o.Str(name, store.MaxContestDescription*2); apiErr != nil {
				return apiErr
			}
		}
	}
	w, err := a.Ops.ContestWithdrawal(c.UserContext(), request.Actor(c), request.Scope(c), id, in)
	if err != nil {
		return reply.Contest(err, id)
	}
	return c.JSON(w)
}

// TestHelperContestResult handles POST
// /api/v1/test_helpers/withdrawals/{id}/contest_result
// {"amount_returned_cents"}: the contest ends as the PSP would say (0:
// refused).
func (a *API) TestHelperContestResult(c *fiber.Ctx) error {
	id, err := withdrawalID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.Body(c, "amount_returned_cents")
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("amount_returned_cents") {
		return o.Missing("amount_returned_cents")
	}
	returned, apiErr := o.IntegerBounded("amount_returned_cents", 0, store.MaxWithdrawalCents,
		func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", "amount_returned_cents", "amount_returned_cents must be 0 or more.")
		},
		func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", "amount_returned_cents", "amount_returned_cents is at most what the withdrawal sent.")
		})
	if apiErr != nil {
		return apiErr
	}
	w, err := a.Ops.SimulateContestResult(c.UserContext(), request.Actor(c), request.Scope(c), id, returned)
	if err != nil {
		return reply.Contest(err, id)
	}
	return c.JSON(w)
}
