package operations

import (
	"context"

	"payments/store"
)

// SimulateDispute opens a test dispute on a paid payment, as the payer's
// bank would (PIX MED): what is still the merchant's is held.
func (o *Operations) SimulateDispute(ctx context.Context, who store.Actor, scope store.Scope, ref, reason string) (*store.Dispute, error) {
	ctx, err := o.simulation(ctx, who, scope)
	if err != nil {
		return nil, err
	}
	return o.Store.OpenDispute(ctx, scope, ref, reason)
}

// SimulateDisputeOutcome closes an open test dispute, won or lost.
func (o *Operations) SimulateDisputeOutcome(ctx context.Context, who store.Actor, scope store.Scope, id, status string) (*store.Dispute, error) {
	ctx, err := o.simulation(ctx, who, scope)
	if err != nil {
		return nil, err
	}
	return o.Store.CloseDispute(ctx, scope, id, status)
}

// ApplyPSPDispute brings a dispute to what the PSP reports about it (see
// store.ApplyPSPDispute), recorded as the PSP's doing.
func (o *Operations) ApplyPSPDispute(ctx context.Context, in store.PSPDispute) (d *store.Dispute, duplicate bool, err error) {
	return o.Store.ApplyPSPDispute(store.WithActor(ctx, store.ActorPSP), in)
}
