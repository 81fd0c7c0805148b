package operations

import (
	"context"

	"payments/store"
)

// SimulateDispute opens a test dispute on a paid payment, as the payer's
// bank would (PIX MED): what is still the merchant's is held.
func (o *Operations) SimulateDispute(ctx context.Context, who store.Actor, scope store.Scope, ref, reason string) (d *store.Dispute, err error) {
	err = o.simulation(ctx, who, scope, rule("SimulateDispute"), "dispute.created", func(ctx context.Context) (string, store.Changes, error) {
		if d, err = o.Store.OpenDispute(ctx, scope, ref, reason); err != nil {
			return "", nil, err
		}
		return d.ID, store.Changes{"status": {nil, d.Status}, "reason": {nil, d.Reason}}, nil
	})
	return d, err
}

// SimulateDisputeOutcome closes an open test dispute, won or lost.
func (o *Operations) SimulateDisputeOutcome(ctx context.Context, who store.Actor, scope store.Scope, id, status string) (d *store.Dispute, err error) {
	err = o.simulation(ctx, who, scope, rule("SimulateDisputeOutcome"), "dispute.closed", func(ctx context.Context) (string, store.Changes, error) {
		if d, err = o.Store.CloseDispute(ctx, scope, id, status); err != nil {
			return "", nil, err
		}
		return d.ID, statusChange(store.DisputeOpen, d.Status), nil
	})
	return d, err
}

// ApplyPSPDispute brings a dispute to what the PSP reports about it (see
// store.ApplyPSPDispute), recorded as the PSP's doing. A repeated notice
// changes nothing and is not audited.
func (o *Operations) ApplyPSPDispute(ctx context.Context, in store.PSPDispute) (d *store.Dispute, duplicate bool, err error) {
	ctx = store.WithActor(ctx, store.ActorPSP)
	err = o.Store.InTx(ctx, func(ctx context.Context) error {
		if d, duplicate, err = o.Store.ApplyPSPDispute(ctx, in); err != nil || duplicate {
			return err
		}
		return o.Store.Audit(ctx, store.AuditRecord{Scope: d.Scope(), Action: "dispute.updated", ObjectID: d.ID,
			Changes: store.Changes{"status": {nil, d.Status}}})
	})
	return d, duplicate, err
}
