package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store/storetest"
)

// In a test binary, a transaction's goroutine that takes a second
// connection from the pool panics, naming the call: on a pool as busy as
// its workers (the PSP worker's 32 on 20) such a call waits for ever, and
// on a test's idle pool it passes unseen. A call that joins the
// transaction (its context carries it) is fine.
func TestATransactionThatReachesForThePoolPanicsInTests(t *testing.T) {
	t.Parallel()
	f := oneConnectionFixture(t, storetest.URL(t))
	ctx := context.Background()
	require.PanicsWithValue(t, "store: a store call takes a second connection from the pool while its goroutine holds one",
		func() { _ = f.st.AccountFromThePool(ctx, f.acct.ID) })

	err := f.st.InTx(ctx, func(ctx context.Context) error {
		acct, err := f.st.Account(ctx, f.acct.ID)
		if err != nil {
			return err
		}
		require.Equal(t, "Loja", acct.Name)
		return nil
	})
	require.NoError(t, err, "a call that joins the transaction")
	_, err = f.st.Account(ctx, f.acct.ID)
	require.NoError(t, err, "the pool's one connection was given back")
}
