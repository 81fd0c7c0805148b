package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
)

// An account holds at most MaxActiveAPIKeys unrevoked keys, also when they
// are asked for at once; revoking one makes room.
func TestAPIKeysPerAccountAreCapped(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	var first *store.APIKey
	for i := range store.MaxActiveAPIKeys - 5 {
		k, _, err := f.st.CreateAPIKey(ctx, f.acct.ID, i%2 == 0, store.NewAPIKey{})
		require.NoError(t, err)
		first = k
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Go(func() {
			_, _, err := f.st.CreateAPIKey(ctx, f.acct.ID, false, store.NewAPIKey{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	var made, refused int
	for err := range errs {
		switch {
		case err == nil:
			made++
		case err == store.ErrAPIKeyLimit:
			refused++
		default:
			t.Fatal(err)
		}
	}
	require.Equal(t, [2]int{5, 5}, [2]int{made, refused}, "made, refused")
	_, err := f.st.RevokeAPIKey(ctx, f.acct.ID, first.ID)
	require.NoError(t, err)
	_, _, err = f.st.CreateAPIKey(ctx, f.acct.ID, true, store.NewAPIKey{})
	require.NoError(t, err, "a revoked key makes room")
	_, _, err = f.st.CreateAPIKey(ctx, f.acct.ID, true, store.NewAPIKey{})
	require.ErrorIs(t, err, store.ErrAPIKeyLimit)
}
