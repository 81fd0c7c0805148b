package operations

import (
	"context"

	"payments/store"
)

// ReturnTransfer returns to the payer, in full, a received Pix that paid
// nothing (store.ReturnTransfer): asked by the merchant whose charge it
// names (scope), or by support (scope nil) for any. Transfers are live
// money, so live mode must be on; who asked is recorded with the return.
func (o *Operations) ReturnTransfer(ctx context.Context, who store.Actor, scope *store.Scope, endToEndID string) (n *store.PixNotification, err error) {
	if !o.LiveMode {
		return nil, ErrLiveModeOff
	}
	if err := o.stepUp(who, true); err != nil {
		return nil, err
	}
	audit, needs := store.Scope{Livemode: true}, rule("ReturnTransfer:platform")
	if scope != nil {
		audit, needs = *scope, rule("ReturnTransfer")
	}
	err = o.change(ctx, who, audit, needs, "transfer.return_requested", func(ctx context.Context) (string, store.Changes, error) {
		if n, err = o.Store.ReturnTransfer(ctx, scope, endToEndID); err != nil {
			return "", nil, err
		}
		return n.EndToEndID, store.Changes{"return": {nil, "requested"}}, nil
	})
	return n, err
}
