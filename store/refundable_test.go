package store_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
)

// The refund rule the write and the payment's page share: a paid payment
// with no open dispute may give back what it received less its refunds
// that did not fail (a due-date charge received what it was paid).
func TestRefundableIsWhatIsLeftOfWhatWasReceived(t *testing.T) {
	t.Parallel()
	paid := &store.Payment{Status: store.StatusPaid, AmountCents: 10_000}
	late := &store.Payment{Status: store.StatusPaid, AmountCents: 10_000, AmountPaidCents: 10_250}
	refunds := []store.Refund{
		{AmountCents: 3_000, Status: store.RefundSucceeded},
		{AmountCents: 2_000, Status: store.RefundPending},
		{AmountCents: 4_000, Status: store.RefundFailed},
	}
	require.Equal(t, int64(5_000), store.OutstandingRefunds(refunds))

	for _, c := range []struct {
		name        string
		p           *store.Payment
		outstanding int64
		disputed    bool
		left        int64
		err         error
	}{
		{"untouched", paid, 0, false, 10_000, nil},
		{"partly refunded", paid, store.OutstandingRefunds(refunds), false, 5_000, nil},
		{"paid with a fine", late, 10_000, false, 250, nil},
		{"all refunded", paid, 10_000, false, 0, store.ErrNothingToRefund},
		{"disputed", paid, 0, true, 0, store.ErrPaymentDisputed},
	} {
		left, err := store.Refundable(c.p, c.outstanding, c.disputed)
		require.Equal(t, c.left, left, c.name)
		require.True(t, errors.Is(err, c.err) || err == c.err, "%s: %v", c.name, err)
	}
	_, err := store.Refundable(&store.Payment{Status: store.StatusPending, AmountCents: 10_000}, 0, false)
	var invalid *store.InvalidTransitionError
	require.ErrorAs(t, err, &invalid)
}
