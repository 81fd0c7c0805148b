package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/storetest"
)

// A confirmation takes two round trips: the lock (with the begin), then
// every write with the commit, so the account's balance row is locked
// across none. It took seven, each a wake-up of the request's goroutine and
// of its backend, the last with the balance row locked.
func TestPaymentConfirmationTakesTwoRoundTrips(t *testing.T) {
	ctx := context.Background()
	proxy, proxied := storetest.StartProxy(t, storetest.URL(t))
	f := oneConnectionFixture(t, proxied)
	st, db := f.st, f.db
	f.paidPayment(10_000) // prepares the statements on the connection
	p := f.createPayment(5_000)

	before := proxy.Writes()
	paid, err := st.MarkPaymentPaid(ctx, f.scope, p.ID.String(), nil)
	require.NoError(t, err)
	require.Equal(t, int64(2), proxy.Writes()-before, "round trips of one confirmation")

	require.Equal(t, store.StatusPaid, paid.Status)
	got, err := st.Payment(ctx, f.scope, p.ID.String())
	require.NoError(t, err)
	require.Equal(t, store.StatusPaid, got.Status)
	f.checkBalance(10_000-100+5_000-50, 0)
	var events int
	require.NoError(t, db.NewRaw("SELECT count(*) FROM events WHERE object_id = ? AND type = ?", p.ID.String(), store.EventPaymentPaid).Scan(ctx, &events))
	require.Equal(t, 1, events)
}

// A confirmation whose writes fail leaves nothing of them, and its
// connection outside any transaction for the next caller.
func TestFailedConfirmationWritesNothing(t *testing.T) {
	ctx := context.Background()
	f := oneConnectionFixture(t, storetest.URL(t))
	st, db := f.st, f.db
	f.paidPayment(10_000)
	doomed := f.createPayment(5_000)
	var pid, pidAfter int
	require.NoError(t, db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid))
	// The event's insert, the second of the writes, fails for this payment.
	_, err := db.ExecContext(ctx, `CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.object_id = '`+doomed.ID.String()+`' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER refuse_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_event()`)
	require.NoError(t, err)

	_, err = st.MarkPaymentPaid(ctx, f.scope, doomed.ID.String(), nil)
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, "refused by the test", pgErr.Message)

	got, err := st.Payment(ctx, f.scope, doomed.ID.String())
	require.NoError(t, err)
	require.Equal(t, store.StatusPending, got.Status)
	f.checkBalance(10_000-100, 0)
	// The pool's only connection was rolled back and kept (one left in a
	// transaction is discarded by database/sql), and the next
	// confirmation on it is whole.
	require.NoError(t, db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pidAfter))
	require.Equal(t, pid, pidAfter)
	f.paidPayment(1_000)
	f.checkBalance(10_000-100+1_000-10, 0)
}
