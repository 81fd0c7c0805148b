package operations

import (
	"context"

	"payments/store"
)

// A refund's rules (what is refundable, how much, the fee's share, the
// balance that must cover it) are the store's write itself: the checks and
// the change are one transaction, so no rule can be read stale. What lives
// here is how a refund settles by door-independent rule: one asked of a
// payment (RefundPayment) succeeds at once in test mode, there being no
// bank to wait for; a refund object made on its own (CreateRefund) stays
// pending in test mode until a simulation ends it, so integrators can try
// both endings.

// RefundPayment refunds a paid payment in one step, all that is left or
// in.AmountCents: in test mode the refund succeeds at once (the payment is
// refunded when that makes it whole); live, the devolução is queued for the
// PSP in the same transaction and the refund is pending. It returns the
// refund and the payment after it. The dashboard, the API's
// POST /payments/{id}/refund and `payments refunds create` all call it.
func (o *Operations) RefundPayment(ctx context.Context, who store.Actor, scope store.Scope, ref string, in store.NewRefund) (r *store.Refund, p *store.Payment, err error) {
	if err := o.enrolledForLiveMoney(who, scope.Livemode); err != nil {
		return nil, nil, err
	}
	err = o.change(ctx, who, scope, rule("RefundPayment"), "refund.created", func(ctx context.Context) (string, store.Changes, error) {
		if r, p, err = o.Store.RefundPayment(ctx, scope, ref, in); err != nil {
			return "", nil, err
		}
		return r.ID, refundChanges(r, p), nil
	})
	return r, p, err
}

// refundChanges are what a refund changed: the refund made, and the
// payment's refunded sum.
func refundChanges(r *store.Refund, p *store.Payment) store.Changes {
	c := store.Changes{"status": {nil, r.Status}, "amount_cents": {nil, r.AmountCents}, "payment": {nil, r.PaymentID}}
	if p != nil {
		c["payment.amount_refunded_cents"] = [2]any{p.AmountRefundedCents - r.AmountCents, p.AmountRefundedCents}
	}
	return c
}

// CheckRefund answers whether RefundPayment would refund in now, by its
// own rules, changing nothing: a confirmation is asked only for a refund
// that would be made.
func (o *Operations) CheckRefund(ctx context.Context, who store.Actor, scope store.Scope, ref string, in store.NewRefund) error {
	if err := o.enrolledForLiveMoney(who, scope.Livemode); err != nil {
		return err
	}
	ctx, err := o.check(ctx, who, scope, rule("CheckRefund"), nil)
	if err != nil {
		return err
	}
	return o.Store.CheckRefund(ctx, scope, ref, in)
}

// CreateRefund makes a pending refund object of (part of) a paid payment:
// live, its devolução is queued for the PSP; in test mode a simulation
// (SimulateRefundEnd) ends it.
func (o *Operations) CreateRefund(ctx context.Context, who store.Actor, scope store.Scope, ref string, in store.NewRefund) (r *store.Refund, err error) {
	if err := o.enrolledForLiveMoney(who, scope.Livemode); err != nil {
		return nil, err
	}
	err = o.change(ctx, who, scope, rule("CreateRefund"), "refund.created", func(ctx context.Context) (string, store.Changes, error) {
		if r, err = o.Store.CreateRefund(ctx, scope, ref, in); err != nil {
			return "", nil, err
		}
		return r.ID, refundChanges(r, nil), nil
	})
	return r, err
}

// SimulateRefundEnd ends a pending test refund as the bank would.
func (o *Operations) SimulateRefundEnd(ctx context.Context, who store.Actor, scope store.Scope, id string, res store.RefundResult) (r *store.Refund, err error) {
	err = o.simulation(ctx, who, scope, rule("SimulateRefundEnd"), "refund."+res.Status, func(ctx context.Context) (string, store.Changes, error) {
		if r, _, err = o.Store.SettleRefund(ctx, &scope, id, res); err != nil {
			return "", nil, err
		}
		return r.ID, statusChange(store.RefundPending, r.Status), nil
	})
	return r, err
}
