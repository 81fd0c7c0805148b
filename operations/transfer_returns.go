package operations

import (
	"context"

	"payments/store"
)

// ReturnTransfer returns to the payer, in full, a received Pix that paid
// nothing (store.ReturnTransfer): asked by the merchant whose charge it
// names (scope), or by support (scope nil) for any. Transfers are live
// money, so live mode must be on; who asked is recorded with the return.
func (o *Operations) ReturnTransfer(ctx context.Context, who store.Actor, scope *store.Scope, endToEndID string) (*store.PixNotification, error) {
	if !o.LiveMode {
		return nil, ErrLiveModeOff
	}
	audit := store.Scope{Livemode: true}
	if scope != nil {
		audit = *scope
	}
	var n *store.PixNotification
	err := o.audited(store.WithActor(ctx, who), audit, "transfer.return_requested", func(ctx context.Context) (string, error) {
		var err error
		if n, err = o.Store.ReturnTransfer(ctx, scope, endToEndID); err != nil {
			return "", err
		}
		return n.EndToEndID, nil
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}
