package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
)

// balanceLocked says whether another connection would wait for the scope's
// balance row now. Only this database's locks count: the tests' databases
// are clones of one template, so another test's balances table in another
// database has the same oid (a fresh run once failed on one).
func (f *moneyFixture) balanceLocked() bool {
	f.t.Helper()
	var locked bool
	err := f.db.NewRaw(`SELECT EXISTS (
		SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		WHERE c.relname = 'balances' AND l.mode = 'RowExclusiveLock' AND l.granted AND l.pid <> pg_backend_pid()
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`).
		Scan(context.Background(), &locked)
	require.NoError(f.t, err)
	return locked
}

// The account's balance row is every payment's: an operation's transaction
// writes it last, just before its commit, not where the posting happens.
func TestBalanceWrittenJustBeforeCommit(t *testing.T) {
	f := newMoneyFixture(t)
	ctx := context.Background()
	p := f.createPayment(10_000)
	var lockedInside bool
	err := f.st.InTx(ctx, func(ctx context.Context) error {
		if _, err := f.st.MarkPaymentPaid(ctx, f.scope, p.ID.String(), nil); err != nil {
			return err
		}
		// What follows the posting (an audit row, in an operation) runs
		// without the balance row locked.
		lockedInside = f.balanceLocked()
		return nil
	})
	require.NoError(t, err)
	require.False(t, lockedInside, "the balance was written where the posting happened")
	f.checkBalance(9_900, 0)
}

// A read of the balance and a covered debit, in the transaction that
// credited it, see the credit; a savepoint rolled back after flushing keeps
// what the transaction still owes the balance.
func TestBalanceTailInsideItsTransaction(t *testing.T) {
	f := newMoneyFixture(t)
	ctx := context.Background()
	p := f.createPayment(10_000)
	refused := errors.New("refused after the debit")
	err := f.st.InTx(ctx, func(ctx context.Context) error {
		if _, err := f.st.MarkPaymentPaid(ctx, f.scope, p.ID.String(), nil); err != nil {
			return err
		}
		// A refund flushes the credit inside its savepoint, then the
		// savepoint is rolled back: the credit must still reach the balance.
		err := f.st.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.st.CreateRefund(ctx, f.scope, p.ID.String(), store.NewRefund{AmountCents: 5_000}); err != nil {
				return err
			}
			return refused
		})
		require.ErrorIs(t, err, refused)
		b, err := f.st.Balance(ctx, f.scope)
		require.NoError(t, err)
		require.Equal(t, int64(9_900), b.AvailableCents, "the balance read inside")
		_, err = f.st.CreateRefund(ctx, f.scope, p.ID.String(), store.NewRefund{AmountCents: 2_000})
		return err
	})
	require.NoError(t, err)
	f.checkBalance(9_900-2_000+20, 0)
}

// An idempotent request's credit reaches the balance with its commit.
func TestBalanceTailOfAnIdempotentRequest(t *testing.T) {
	f := newMoneyFixture(t)
	ctx := context.Background()
	p := f.createPayment(10_000)
	req, err := f.st.BeginIdempotent(ctx, f.scope, "key-1", []byte("hash"))
	require.NoError(t, err)
	_, err = f.st.MarkPaymentPaid(req.Context(ctx), f.scope, p.ID.String(), nil)
	require.NoError(t, err)
	require.False(t, f.balanceLocked(), "the balance was written before the response")
	require.NoError(t, req.Finish(ctx, 200, []byte(`{}`)))
	f.checkBalance(9_900, 0)
}
