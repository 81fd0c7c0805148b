package psp

import (
	"github.com/gofiber/fiber/v2"

	"payments/store"
	"payments/web/reply"
)

// NotifyWithdrawal handles POST /psp/withdrawals: the PSP reports how a
// payout ended, {"id","status","endToEndId","failure_reason"}.
func (p *PSP) NotifyWithdrawal(c *fiber.Ctx) error {
	o, apiErr := p.body(c, "id", "status", "endToEndId", "failure_reason")
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("id") {
		return o.Missing("id")
	}
	id, apiErr := o.Str("id", 64)
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("status") {
		return o.Missing("status")
	}
	var res store.WithdrawalResult
	if res.Status, apiErr = o.Enum("status", []string{store.WithdrawalCompleted, store.WithdrawalFailed}); apiErr != nil {
		return apiErr
	}
	if o.Present("endToEndId") {
		e2e, apiErr := o.Str("endToEndId", 32)
		if apiErr != nil {
			return apiErr
		}
		if !EndToEndIDPattern.MatchString(e2e) {
			return reply.InvalidParam("parameter_invalid", "endToEndId", "endToEndId must be 32 letters and digits.")
		}
		res.EndToEndID = &e2e
	}
	if o.Present("failure_reason") {
		reason, apiErr := o.Str("failure_reason", store.MaxFailureReason)
		if apiErr != nil {
			return apiErr
		}
		res.FailureReason = &reason
	}
	if res.Status == store.WithdrawalFailed && res.FailureReason == nil {
		return o.Missing("failure_reason")
	}
	w, duplicate, err := p.Store.FinishWithdrawal(c.UserContext(), nil, id, res)
	if err != nil {
		return reply.Withdrawal(err, id)
	}
	return c.JSON(resultJSON{ID: w.ID, Object: "withdrawal", Status: w.Status, Duplicate: duplicate})
}
