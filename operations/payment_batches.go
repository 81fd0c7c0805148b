package operations

import (
	"context"
	"fmt"

	"payments/store"
)

// NewBatchItem is one item of a batch as asked for: the payment to make, or
// why the request's item was refused before any (its parameters).
type NewBatchItem struct {
	ExternalID *string
	Payment    *store.NewPayment
	Error      *store.ItemError
}

// CreatePaymentBatch makes the charges of a batch (API Pix's lotecobv) for
// acct in the mode given, each built by the one builder and validated on
// its own: refused items are kept with their error, the others created
// (store.CreatePaymentBatch). Live, their registration at the PSP is
// queued in the same transaction.
func (o *Operations) CreatePaymentBatch(ctx context.Context, who store.Actor, acct *store.Account, livemode bool,
	description *string, items []NewBatchItem,
) (b *store.PaymentBatch, err error) {
	ctx, err = o.check(ctx, who, store.Scope{AccountID: acct.ID, Livemode: livemode}, rule("CreatePaymentBatch"), acct)
	if err != nil {
		return nil, err
	}
	entries := make([]store.BatchEntry, len(items))
	for i, item := range items {
		entries[i] = store.BatchEntry{ExternalID: item.ExternalID, Error: item.Error}
		if item.Payment != nil {
			bad := o.checkNewPayment(*item.Payment)
			if bad == nil {
				if bad, err = o.checkSplits(ctx, acct, *item.Payment); err != nil {
					return nil, err
				}
			}
			if bad != nil {
				code := bad.Code
				if code == "" {
					code = "parameter_invalid"
				}
				entries[i].Error = &store.ItemError{Type: "invalid_request_error", Code: code,
					Param: fmt.Sprintf("payments[%d].%s", i, bad.Param), Message: bad.Message}
				continue
			}
			if entries[i].Payment, err = o.Store.BuildPayment(acct, livemode, *item.Payment); err != nil {
				return nil, err
			}
		}
	}
	b = &store.PaymentBatch{AccountID: acct.ID, Livemode: livemode, Description: description}
	if err := o.Store.CreatePaymentBatch(ctx, b, entries); err != nil {
		return nil, err
	}
	return b, nil
}
