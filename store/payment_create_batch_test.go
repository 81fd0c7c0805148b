package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/store/ids"
)

// Concurrent creations share a statement, but a taken external_id refuses
// only its own creation, before or after the others.
func TestCreationsTogetherFailAlone(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	taken := f.createPayment(500)
	ext := "order-77"
	build := func(externalID *string) *store.Payment {
		now := f.st.Now()
		return &store.Payment{
			ID: ids.NewPayment(now), AccountID: f.scope.AccountID, Status: store.StatusPending,
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
		events, err := f.st.EventsForObjects(ctx, f.scope, []string{p.ID.String()})
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

// A batch is one statement: every payment of it is created with its event
// and the event's deliveries, stored as the API shows it, except those whose
// external_id is taken (before the batch, or by an earlier payment in it).
func TestCreationsInOneStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newMoneyFixture(t)
	st, acct, scope := f.st, f.acct, f.scope
	subscribed, _, err := st.CreateWebhook(ctx, store.NewWebhook{Scope: scope, URL: "https://example.com/a",
		APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true})
	require.NoError(t, err)
	_, _, err = st.CreateWebhook(ctx, store.NewWebhook{Scope: scope, URL: "https://example.com/b",
		APIVersion: "v2", Events: []string{"payment.paid"}, Enabled: true})
	require.NoError(t, err)
	phone := "+5511999990000"
	build := func(externalID *string) *store.Payment {
		now := st.Now()
		return &store.Payment{
			ID: ids.NewPayment(now), AccountID: acct.ID, Status: store.StatusPending,
			AmountCents: 1_990, Currency: "BRL", PaymentMethod: "pix", CorrelationID: pix.NewTxID(), FeeCents: 20,
			ExternalID: externalID, Metadata: map[string]string{"pedido": "ção \"7\""},
			Customer: &store.Customer{Name: "Ana", Email: "ana@example.com", Document: "12345678909", Phone: &phone},
			BRCode:   "x", QRCodeURL: "http://x/qr.png", CheckoutURL: "http://x/pay",
			CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
		}
	}
	taken, ext := "order-taken", "order-88"
	require.NoError(t, st.CreatePayment(ctx, build(&taken)))
	batch := []*store.Payment{build(&taken), build(&ext), build(nil), build(&ext), build(nil)}
	created, err := st.CreateInOneStatement(ctx, batch)
	require.NoError(t, err)
	require.Equal(t, []bool{false, true, true, false, true}, created)
	for i, p := range batch {
		got, readErr := st.Payment(ctx, scope, p.ID.String())
		events, err := st.EventsForObjects(ctx, scope, []string{p.ID.String()})
		require.NoError(t, err)
		var deliveries []store.Delivery
		require.NoError(t, st.DB().NewSelect().Model(&deliveries).Where("event_id IN (?)", st.DB().NewSelect().
			Model((*store.Event)(nil)).Column("id").Where("object_id = ?", p.ID.String())).Scan(ctx))
		if !created[i] {
			require.ErrorIs(t, readErr, store.ErrNotFound, "payment %d", i)
			require.Empty(t, events, "payment %d", i)
			require.Empty(t, deliveries, "payment %d", i)
			continue
		}
		require.NoError(t, readErr, "payment %d", i)
		want, err := json.Marshal(p)
		require.NoError(t, err)
		stored, err := json.Marshal(got)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(stored), "payment %d reads back as created", i)
		require.Len(t, events, 1, "payment %d", i)
		require.Equal(t, store.EventPaymentCreated, events[0].Type)
		require.JSONEq(t, string(want), string(events[0].Data), "payment %d's event holds the payment", i)
		require.Len(t, deliveries, 1, "payment %d: one delivery, to the webhook subscribed to payment.created", i)
		require.Equal(t, subscribed.ID, deliveries[0].WebhookID)
		require.Equal(t, store.DeliveryPending, deliveries[0].Status)
	}
}

// When the batch's statement fails for another reason than a taken
// external_id, nothing of it stays, and the payments are created one by one
// instead: the refused one fails alone.
func TestCreationsFallBackOneByOne(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	existing := f.createPayment(500)
	build := func() *store.Payment {
		now := f.st.Now()
		return &store.Payment{
			ID: ids.NewPayment(now), AccountID: f.scope.AccountID, Status: store.StatusPending,
			AmountCents: 1_990, Currency: "BRL", PaymentMethod: "pix", CorrelationID: pix.NewTxID(), FeeCents: 20,
			BRCode: "x", QRCodeURL: "http://x/qr.png", CheckoutURL: "http://x/pay",
			CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
		}
	}
	clash := build()
	clash.ID = existing.ID // a primary key that is taken: not the statement's to skip
	batch := []*store.Payment{build(), clash, build()}
	_, err := f.st.CreateInOneStatement(ctx, batch)
	require.ErrorIs(t, store.Translate(err), store.ErrConflict)
	for _, i := range []int{0, 2} {
		_, readErr := f.st.Payment(ctx, f.scope, batch[i].ID.String())
		require.ErrorIs(t, readErr, store.ErrNotFound, "the failed statement left payment %d", i)
	}

	errs := f.st.CreateTogether(ctx, batch)
	require.NoError(t, errs[0])
	require.NoError(t, errs[2])
	var conflict *store.ConflictError
	require.ErrorAs(t, errs[1], &conflict)
	require.Equal(t, "payments_pkey", conflict.Constraint)
	for _, i := range []int{0, 2} {
		_, err := f.st.Payment(ctx, f.scope, batch[i].ID.String())
		require.NoError(t, err, "payment %d", i)
	}
	got, err := f.st.Payment(ctx, f.scope, existing.ID.String())
	require.NoError(t, err)
	require.Equal(t, int64(500), got.AmountCents, "the payment already there is untouched")
}
