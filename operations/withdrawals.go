package operations

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"payments/store"
)

// CreateWithdrawal pays out w.AmountCents of the available balance to a
// Pix key (w's account and mode say whose): pending, with its amount debited
// and, live, the payout queued for the PSP, in one transaction; more than
// is available is store.ErrBalanceInsufficient.
func (o *Operations) CreateWithdrawal(ctx context.Context, who store.Actor, w *store.Withdrawal) error {
	if err := o.stepUp(who, w.Livemode); err != nil {
		return err
	}
	return o.change(ctx, who, w.Scope(), rule("CreateWithdrawal"), "withdrawal.created", func(ctx context.Context) (string, store.Changes, error) {
		if err := o.Store.CreateWithdrawal(ctx, w); err != nil {
			return "", nil, err
		}
		return w.ID, store.Changes{"status": {nil, w.Status}, "amount_cents": {nil, w.AmountCents}}, nil
	})
}

// CheckWithdrawal answers whether CreateWithdrawal would make w now,
// changing nothing.
func (o *Operations) CheckWithdrawal(ctx context.Context, who store.Actor, w store.Withdrawal) error {
	if err := o.stepUp(who, w.Livemode); err != nil {
		return err
	}
	ctx, err := o.check(ctx, who, w.Scope(), rule("CheckWithdrawal"), nil)
	if err != nil {
		return err
	}
	return o.Store.CheckWithdrawal(ctx, w)
}

// SimulateWithdrawalEnd completes or fails a pending test withdrawal as
// the PSP would.
func (o *Operations) SimulateWithdrawalEnd(ctx context.Context, who store.Actor, scope store.Scope, id string, res store.WithdrawalResult) (w *store.Withdrawal, err error) {
	err = o.simulation(ctx, who, scope, rule("SimulateWithdrawalEnd"), "withdrawal."+res.Status, func(ctx context.Context) (string, store.Changes, error) {
		if w, _, err = o.Store.FinishWithdrawal(ctx, &scope, id, res); err != nil {
			return "", nil, err
		}
		return w.ID, statusChange(store.WithdrawalPending, w.Status), nil
	})
	return w, err
}

// ContestInput is a contest as sent: MED 2.0's grounds and the merchant's
// account of what happened.
type ContestInput struct {
	Reason      string
	Description string
}

// ContestWithdrawal contests the scope's completed withdrawal id (MED 2.0
// for money sent: the merchant was defrauded or coerced into it, or an
// institution failed): pending, with withdrawal.contested; live, sent to
// the PSP, which asks the receiving institution to block and return the
// money. Who needs write permission on withdrawals (money out), live a
// second factor as for a withdrawal.
func (o *Operations) ContestWithdrawal(ctx context.Context, who store.Actor, scope store.Scope, id string, in ContestInput) (w *store.Withdrawal, err error) {
	contest, err := checkContest(in)
	if err != nil {
		return nil, err
	}
	if err := o.stepUp(who, scope.Livemode); err != nil {
		return nil, err
	}
	err = o.change(ctx, who, scope, rule("ContestWithdrawal"), "withdrawal.contested", func(ctx context.Context) (string, store.Changes, error) {
		if w, err = o.Store.ContestWithdrawal(ctx, scope, id, contest); err != nil {
			return "", nil, err
		}
		return w.ID, store.Changes{"contest_status": {nil, *w.ContestStatus}, "reason": {nil, contest.Reason}}, nil
	})
	return w, err
}

// checkContest is every rule of a contest's input: one of MED 2.0's
// grounds, and an account of 1 to store.MaxContestDescription characters.
func checkContest(in ContestInput) (store.NewContest, error) {
	var errs InputErrors
	if !slices.Contains(store.DisputeReasons, in.Reason) {
		errs = append(errs, &InputError{Param: "reason", Code: "parameter_invalid",
			Message: fmt.Sprintf("reason must be one of %v (MED 2.0 takes no commercial disagreement).", store.DisputeReasons),
			Words:   "contest.reason_invalid"})
	}
	description := strings.TrimSpace(in.Description)
	switch n := utf8.RuneCountInString(description); {
	case n == 0:
		errs = append(errs, &InputError{Param: "description", Code: "parameter_missing",
			Message: "description is required: what happened, for the institutions to weigh.", Words: "contest.description_missing"})
	case n > store.MaxContestDescription:
		errs = append(errs, &InputError{Param: "description", Code: "parameter_too_long",
			Message: fmt.Sprintf("description must be at most %d characters.", store.MaxContestDescription), Words: "contest.description_long"})
	}
	if len(errs) > 0 {
		return store.NewContest{}, errs
	}
	return store.NewContest{Reason: in.Reason, Description: description}, nil
}

// SimulateContestResult ends a test withdrawal's pending contest as the
// PSP would: returnedCents came back (all of it, part, or 0: refused).
func (o *Operations) SimulateContestResult(ctx context.Context, who store.Actor, scope store.Scope, id string, returnedCents int64) (w *store.Withdrawal, err error) {
	err = o.simulation(ctx, who, scope, rule("SimulateContestResult"), "withdrawal.contest_resolved", func(ctx context.Context) (string, store.Changes, error) {
		if w, _, err = o.Store.ResolveContest(ctx, &scope, id, store.ContestResult{ReturnedCents: returnedCents}); err != nil {
			return "", nil, err
		}
		return w.ID, store.Changes{"contest_status": {store.ContestPending, *w.ContestStatus}, "amount_cents": {nil, returnedCents}}, nil
	})
	return w, err
}
