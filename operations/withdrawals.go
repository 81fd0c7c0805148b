package operations

import (
	"context"

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
