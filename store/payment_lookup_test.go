package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/store/ids"
)

// Payment reads natively on the pool and through database/sql inside a
// transaction: both must read every column alike and resolve refs alike
// (an id wins over an equal external_id; other scopes see nothing).
func TestPaymentLookupByIDAndExternalID(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	byID := f.createPayment(1_000)
	desc, phone := "Camiseta", "+5511999990000"
	shadow := func(ext string) *store.Payment {
		now := f.st.Now()
		p := &store.Payment{
			ID: ids.NewPayment(now), AccountID: f.scope.AccountID, Status: store.StatusPending,
			AmountCents: 2_500, Currency: "BRL", PaymentMethod: "pix", CorrelationID: pix.NewTxID(), FeeCents: 25,
			Description: &desc, ExternalID: &ext,
			Customer: &store.Customer{Name: "Ana", Email: "ana@example.com", Document: "12345678909", Phone: &phone},
			Metadata: map[string]string{"order": "42"}, BRCode: "br", QRCodeURL: "http://x/qr.png",
			CheckoutURL: "http://x/pay", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
		}
		require.NoError(t, f.st.CreatePayment(ctx, p))
		return p
	}
	// An external_id equal to another payment's id loses to that id.
	shadowed := shadow(byID.ID.String())
	uuidExt := shadow(uuid.NewString())
	plainExt := shadow("order-42")
	paid, err := f.st.MarkPaymentPaid(ctx, f.scope, plainExt.ID.String(), nil)
	require.NoError(t, err)

	cases := []struct {
		ref  string
		want *store.Payment
	}{
		{byID.ID.String(), byID},
		{shadowed.ID.String(), shadowed},
		{*uuidExt.ExternalID, uuidExt},
		{"order-42", paid},
	}
	lookups := map[string]func(ref string) (*store.Payment, error){
		"pool": func(ref string) (*store.Payment, error) { return f.st.Payment(ctx, f.scope, ref) },
		"transaction": func(ref string) (p *store.Payment, err error) {
			txErr := f.st.InTx(ctx, func(ctx context.Context) error {
				p, err = f.st.Payment(ctx, f.scope, ref)
				return nil
			})
			require.NoError(t, txErr)
			return p, err
		},
	}
	for name, lookup := range lookups {
		for _, c := range cases {
			got, err := lookup(c.ref)
			require.NoError(t, err, "%s %s", name, c.ref)
			wantJSON, err := c.want.MarshalJSON()
			require.NoError(t, err)
			gotJSON, err := got.MarshalJSON()
			require.NoError(t, err)
			require.JSONEq(t, string(wantJSON), string(gotJSON), "%s %s", name, c.ref)
			require.Equal(t, c.want.Metadata, got.Metadata)
			require.Equal(t, c.want.Customer, got.Customer)
		}
		for _, ref := range []string{uuid.NewString(), "order-43", ""} {
			_, err := lookup(ref)
			require.ErrorIs(t, err, store.ErrNotFound, "%s %q", name, ref)
		}
		other := store.Scope{AccountID: f.scope.AccountID, Livemode: true}
		_, err := f.st.Payment(ctx, other, byID.ID.String())
		require.ErrorIs(t, err, store.ErrNotFound, "live mode does not see test payments")
	}

	// One batch: each read gets its own row (a repeated id too, in its
	// place), and a missing id or another scope's payment is ErrNotFound.
	other := store.Scope{AccountID: f.scope.AccountID, Livemode: true}
	scopes := []store.Scope{f.scope, f.scope, other, f.scope, f.scope, f.scope}
	ids := []uuid.UUID{plainExt.ID, byID.ID, byID.ID, uuid.New(), shadowed.ID, plainExt.ID}
	want := []*store.Payment{paid, byID, nil, nil, shadowed, paid}
	got, errs := f.st.ReadTogether(ctx, scopes, ids)
	for i := range ids {
		if want[i] == nil {
			require.ErrorIs(t, errs[i], store.ErrNotFound, "read %d", i)
			require.Nil(t, got[i], "read %d", i)
			continue
		}
		require.NoError(t, errs[i], "read %d", i)
		wantJSON, err := want[i].MarshalJSON()
		require.NoError(t, err)
		gotJSON, err := got[i].MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, string(wantJSON), string(gotJSON), "read %d", i)
		require.Equal(t, want[i].Customer, got[i].Customer, "read %d", i)
	}
	// A read alone takes the single-row statement.
	got, errs = f.st.ReadTogether(ctx, scopes[4:5], ids[4:5])
	require.NoError(t, errs[0])
	require.Equal(t, shadowed.ID, got[0].ID)
	require.Equal(t, shadowed.Metadata, got[0].Metadata)
}

// Concurrent reads by id are answered in shared statements: each must get
// its own payment, and only in its own scope.
func TestConcurrentPaymentReadsEachGetTheirOwn(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	payments := make([]*store.Payment, 40)
	for i := range payments {
		payments[i] = f.createPayment(int64(100 + i))
	}
	other := store.Scope{AccountID: f.scope.AccountID, Livemode: true}
	var wg sync.WaitGroup
	errs := make(chan error, 64*len(payments))
	for w := range 64 {
		wg.Go(func() {
			for i := range payments {
				p := payments[(w+i)%len(payments)]
				switch (w + i) % 3 {
				case 0, 1:
					got, err := f.st.Payment(ctx, f.scope, p.ID.String())
					if err != nil || got.ID != p.ID || got.AmountCents != p.AmountCents {
						errs <- fmt.Errorf("read %s: got %+v, %v", p.ID, got, err)
					}
				default:
					if _, err := f.st.Payment(ctx, other, p.ID.String()); !errors.Is(err, store.ErrNotFound) {
						errs <- fmt.Errorf("other scope read %s: %v", p.ID, err)
					}
					if _, err := f.st.Payment(ctx, f.scope, uuid.NewString()); !errors.Is(err, store.ErrNotFound) {
						errs <- fmt.Errorf("missing id: %v", err)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
