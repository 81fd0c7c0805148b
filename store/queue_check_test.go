package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/storetest"
)

// A callback that comes while a read of the same object is in flight
// queues a read of its own: the one in flight may have asked the PSP
// before what the callback tells of happened. One not in flight is woken.
func TestQueueCheckBesideACheckInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.New(storetest.DB(t), store.Options{SecretKey: make([]byte, 32)})
	require.NoError(t, err)
	pending := func() (n int) {
		require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM psp_calls WHERE kind = ? AND object_id = 'cyc_1' AND status = 'pending'`,
			store.CallCobRCheck).Scan(ctx, &n))
		return n
	}
	require.NoError(t, st.QueueCheck(ctx, nil, store.CallCobRCheck, "cyc_1"))
	require.NoError(t, st.QueueCheck(ctx, nil, store.CallCobRCheck, "cyc_1"))
	require.Equal(t, 1, pending(), "a waiting read is woken, not doubled")

	claimed, err := st.ClaimPSPCalls(ctx, time.Now(), 10, time.Minute, "worker-1")
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.NoError(t, st.QueueCheck(ctx, nil, store.CallCobRCheck, "cyc_1"))
	require.Equal(t, 2, pending(), "the read in flight, and a new one after it")
}
