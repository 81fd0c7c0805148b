package operations_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/store/storetest"
)

// A payment's transition asked by a person or key (pay or expire a test
// charge, cancel one) is written with its audit row in two round trips, as
// the PSP's confirmation is: the lock with the begin, then every write with
// the commit. Each took ten, statement by statement in the operation's
// transaction, the account's balance row (every payment's) locked across
// the last two.
func TestAPaymentsTransitionAndItsAuditTakeTwoRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	proxy, proxied := storetest.StartProxy(t, storetest.URL(t))
	db, err := store.Open(ctx, proxied, 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	st, err := store.New(db, store.Options{SecretKey: make([]byte, 32), Charges: store.Charges{
		Receiver: pix.Receiver{Key: "00000000-0000-4000-8000-000000000000", City: "SAO PAULO"}, BaseURL: "http://127.0.0.1:8080"}})
	require.NoError(t, err)
	ops := &operations.Operations{Store: st}
	acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja", Email: "loja@example.com", FeeBPS: 100})
	require.NoError(t, err)
	owner, err := st.CreateUser(ctx, "dona@example.com", "correct-horse-battery", store.RoleOwner, acct.ID)
	require.NoError(t, err)
	who := store.ActorUser(owner.ID)
	who.Name, who.Role, who.Door, who.IP = owner.Email, store.RoleOwner, store.DoorDashboard, "203.0.113.7"
	test := store.Scope{AccountID: acct.ID}
	newPayment := func() string {
		return newPaymentSilently(t, ops, acct, test).ID.String()
	}
	// Each kind once first: its statements are prepared on the connection.
	for _, warm := range []func(string) (*store.Payment, error){
		func(id string) (*store.Payment, error) { return ops.SimulatePayment(ctx, who, test, id) },
		func(id string) (*store.Payment, error) { return ops.SimulateExpiry(ctx, who, test, id) },
		func(id string) (*store.Payment, error) { return ops.CancelPayment(ctx, who, test, id) },
	} {
		_, err := warm(newPayment())
		require.NoError(t, err)
	}

	for _, step := range []struct {
		action, status string
		do             func(id string) (*store.Payment, error)
		changes        string
	}{
		{"payment.paid", store.StatusPaid, func(id string) (*store.Payment, error) { return ops.SimulatePayment(ctx, who, test, id) },
			`{"status": ["pending", "paid"], "amount_paid_cents": [null, 10000]}`},
		{"payment.expired", store.StatusExpired, func(id string) (*store.Payment, error) { return ops.SimulateExpiry(ctx, who, test, id) },
			`{"status": ["pending", "expired"]}`},
		{"payment.canceled", store.StatusCanceled, func(id string) (*store.Payment, error) { return ops.CancelPayment(ctx, who, test, id) },
			`{"status": ["pending", "canceled"]}`},
	} {
		id := newPayment()
		before := proxy.Writes()
		p, err := step.do(id)
		require.NoError(t, err, step.action)
		require.Equal(t, int64(2), proxy.Writes()-before, "round trips of %s", step.action)
		require.Equal(t, step.status, p.Status)
		rows := auditRowsOf(t, db, id)
		require.Len(t, rows, 2, "%s: its creation's row and its own", step.action)
		got := rows[1]
		require.Equal(t, step.action, got.Action)
		require.Equal(t, who.ID, got.Actor)
		require.Equal(t, store.DoorDashboard, got.Door)
		require.Equal(t, "203.0.113.7", got.IP)
		require.JSONEq(t, step.changes, got.Changes)
	}

	// A refusal writes no row: paying a charge twice.
	id := newPayment()
	_, err = ops.SimulatePayment(ctx, who, test, id)
	require.NoError(t, err)
	_, err = ops.SimulatePayment(ctx, who, test, id)
	require.ErrorIs(t, err, store.ErrInvalidTransition)
	require.Len(t, auditRowsOf(t, db, id), 2, "the creation's row and one payment.paid")
}

// auditRowsOf is auditRows of one object.
func auditRowsOf(t *testing.T, db *bun.DB, objectID string) []auditRow {
	t.Helper()
	var out []auditRow
	for _, r := range auditRows(t, db) {
		if r.ObjectID == objectID {
			out = append(out, r)
		}
	}
	return out
}
