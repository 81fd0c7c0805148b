package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// ContestWithdrawal handles POST /dashboard/balance/withdrawals/{id}/contest
// (MED 2.0 for money sent): the reason and account typed on the balance
// page, then a confirmation that says which withdrawal and what follows,
// then the operation the API uses, once.
func (d *Dashboard) ContestWithdrawal(c *fiber.Ctx) error {
	scope := dashScope(c)
	id := pathParam(c, "id")
	back := "/dashboard/balance"
	w, err := d.Store.Withdrawal(c.UserContext(), scope, id)
	if err != nil {
		return reply.Withdrawal(err, id)
	}
	in := operations.ContestInput{Reason: c.FormValue("reason"), Description: c.FormValue("description")}
	if !confirmedOnce(c) {
		lines := []views.ConfirmLine{
			{Label: t(c, "field.amount"), Value: pix.FormatBRL(w.AmountCents)},
			{Label: t(c, "confirm.to_key"), Value: pix.FormatKey(w.PixKey, pix.KeyType(w.PixKeyType))},
			{Label: t(c, "contest.reason"), Value: views.Label(c.UserContext(), "dispute_reason", in.Reason)},
			{Label: t(c, "contest.description"), Value: strings.TrimSpace(in.Description)},
		}
		fields := []views.Field{{Name: "reason", Value: in.Reason}, {Name: "description", Value: in.Description}, newConfirmToken()}
		return d.confirm(c, "balance", views.Confirmation{Title: t(c, "contest.confirm_title"), Lines: lines,
			Warning: t(c, "contest.confirm_warning"), Fields: fields, Button: t(c, "contest.confirm_button"), CancelURL: back, Danger: true})
	}
	return d.once(c, scope, back, func(ctx context.Context) (outcome, error) {
		if _, err := d.Ops.ContestWithdrawal(ctx, request.Actor(c), scope, id, in); err != nil {
			if fields := map[string]string{}; refusedFields(c, err, fields) {
				var said []string
				for _, field := range []string{"reason", "description"} {
					if words, ok := fields[field]; ok {
						said = append(said, words)
					}
				}
				return outcome{Notice: strings.Join(said, " "), Error: true, Location: back}, nil
			}
			return refusal(c, back, reply.Contest(err, id))
		}
		return outcome{Notice: t(c, "contest.created", "Amount", pix.FormatBRL(w.AmountCents)), Location: back}, nil
	})
}

// SimulateContestResult handles POST
// /dashboard/balance/withdrawals/{id}/contest_result/{returned|refused} in
// test mode: the request for a return ends, all of it back or nothing.
func (d *Dashboard) SimulateContestResult(c *fiber.Ctx) error {
	scope := dashScope(c)
	id := pathParam(c, "id")
	w, err := d.Store.Withdrawal(c.UserContext(), scope, id)
	if err != nil {
		return reply.Withdrawal(err, id)
	}
	var returned int64
	switch c.Params("result") {
	case "returned":
		returned = w.AmountCents
	case "refused":
	default:
		return reply.NoSuch("page", "", c.Path())
	}
	if _, err := d.Ops.SimulateContestResult(c.UserContext(), request.Actor(c), scope, id, returned); err != nil {
		if errors.Is(err, operations.ErrTestModeOnly) {
			return reply.Refusal(err) // no page offers it: a forged request
		}
		return d.noticeOrErr(c, "/dashboard/balance", reply.Contest(err, id))
	}
	return c.Redirect("/dashboard/balance", http.StatusSeeOther)
}

// contestRow fills the balance page's row of w with its contest, and
// whether the person may contest it now.
func (d *Dashboard) contestRow(c *fiber.Ctx, row *views.WithdrawalRow, w *store.Withdrawal) {
	if w.ContestStatus != nil {
		row.ContestStatus = *w.ContestStatus
		if w.ContestReturnedCents != nil && *w.ContestReturnedCents > 0 {
			row.ContestReturnedLabel = pix.FormatBRL(*w.ContestReturnedCents)
		}
		return
	}
	row.CanContest = may(c, operations.Withdrawals) && w.ContestRefusal(d.Store.Now()) == nil
}
