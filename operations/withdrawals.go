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
	ctx, err := o.as(ctx, who, w.Scope())
	if err != nil {
		return err
	}
	return o.audited(ctx, w.Scope(), "withdrawal.created", func(ctx context.Context) (string, error) {
		if err := o.Store.CreateWithdrawal(ctx, w); err != nil {
			return "", err
		}
		return w.ID, nil
	})
}

// CheckWithdrawal answers whether CreateWithdrawal would make w now,
// changing nothing.
func (o *Operations) CheckWithdrawal(ctx context.Context, who store.Actor, w store.Withdrawal) error {
	ctx, err := o.as(ctx, who, w.Scope())
	if err != nil {
		return err
	}
	return o.Store.CheckWithdrawal(ctx, w)
}

// SimulateWithdrawalEnd completes or fails a pending test withdrawal as
// the PSP would.
func (o *Operations) SimulateWithdrawalEnd(ctx context.Context, who store.Actor, scope store.Scope, id string, res store.WithdrawalResult) (*store.Withdrawal, error) {
	ctx, err := o.simulation(ctx, who, scope)
	if err != nil {
		return nil, err
	}
	w, _, err := o.Store.FinishWithdrawal(ctx, &scope, id, res)
	return w, err
}
