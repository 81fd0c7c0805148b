package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
)

// Concurrent creations share a round trip but not a transaction: a taken
// external_id refuses only its own creation, before or after the others.
func TestCreationsTogetherFailAlone(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	taken := f.createPayment(500)
	ext := "order-77"
	build := func(externalID *string) *store.Payment {
		now := f.st.Now()
		return &store.Payment{
			ID: store.NewPaymentID(now), AccountID: f.scope.AccountID, Status: store.StatusPending,
			AmountCents: 1_990, Currency: "BRL", PaymentMethod: "pix", CorrelationID: pix.NewTxID(), FeeCents: 20,
			ExternalID: externalID, Metadata: map[string]string{"n": "1"}, BRCode: "x", QRCodeURL: "http://x/qr.png",
			CheckoutURL: "http://x/pay", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
		}
	}
	takenExt := "order-taken"
	require.NoError(t, f.st.CreatePayment(ctx, build(&takenExt)))
	batch := []*store.Payment{
		build(&takenExt), // taken before the batch
		build(&ext),      // wins: the first in the batch to use order-77
		build(nil),
		build(&ext), // loses to the one two before it
		build(nil),
	}
	errs := f.st.CreateTogether(ctx, batch)
	for i, wantConflict := range []bool{true, false, false, true, false} {
		p := batch[i]
		_, readErr := f.st.Payment(ctx, f.scope, p.ID.String())
		events, err := f.st.EventsForObject(ctx, f.scope, p.ID.String())
		require.NoError(t, err)
		if wantConflict {
			require.ErrorIs(t, errs[i], store.ErrConflict, "creation %d", i)
			require.ErrorIs(t, readErr, store.ErrNotFound, "creation %d left a payment", i)
			require.Empty(t, events, "creation %d left an event", i)
			continue
		}
		require.NoError(t, errs[i], "creation %d", i)
		require.NoError(t, readErr, "creation %d", i)
		require.Len(t, events, 1, "creation %d", i)
		require.Equal(t, store.EventPaymentCreated, events[0].Type)
	}
	_, err := f.st.Payment(ctx, f.scope, taken.ID.String())
	require.NoError(t, err, "payments made before the batch stay")
}
