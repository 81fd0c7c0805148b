package operations

import (
	"context"
	"fmt"

	"payments/store"
)

// checkSplits is every rule of a charge's splits that is not their form:
// each names a different account of the charge's platform (the platform,
// or another of its active subaccounts), and their parts, on the amount
// (a due-date charge's face amount), fit in the charge's net. A part is
// store.Payment.SplitParts' rule: what is fixed, or its percent of the
// amount, less its share of the fee when its recipient bears it. err is
// the store's failure to read the accounts, not a refusal.
func (o *Operations) checkSplits(ctx context.Context, acct *store.Account, in store.NewPayment) (refused *InputError, err error) {
	if len(in.Splits) == 0 {
		return nil, nil
	}
	if len(in.Splits) > store.MaxSplits {
		return &InputError{Param: "splits", Message: fmt.Sprintf("splits takes at most %d entries.", store.MaxSplits)}, nil
	}
	ids := make([]string, len(in.Splits))
	for i, s := range in.Splits {
		ids[i] = s.Account
	}
	family, err := o.Store.SplitFamily(ctx, acct, ids)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, s := range in.Splits {
		param := fmt.Sprintf("splits[%d].account", i)
		switch {
		case seen[s.Account]:
			return &InputError{Param: param, Message: "Each split names a different account."}, nil
		case !family[s.Account]:
			return &InputError{Param: param, Code: "split_account_invalid",
				Message: "A split goes to the charge's platform or another of its active subaccounts, never to the charge's own account."}, nil
		}
		seen[s.Account] = true
	}
	fee := acct.Fee(in.AmountCents)
	probe := store.Payment{AmountCents: in.AmountCents, AmountPaidCents: in.AmountCents, FeeCents: fee, Splits: in.Splits, PaidAt: new(o.Store.Now())}
	var sum int64
	for _, part := range probe.UnclampedSplitParts() {
		sum += part
	}
	if net := in.AmountCents - fee; sum > net {
		return &InputError{Param: "splits", Code: "splits_too_large",
			Message: fmt.Sprintf("The splits add up to %d cents, more than the charge's net of %d (amount_cents less the fee).", sum, net)}, nil
	}
	return nil, nil
}
