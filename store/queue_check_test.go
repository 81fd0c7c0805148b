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

// A PSP callback about devoluções (or payouts) does the same for each: a
// check waiting is woken, a check in flight gets one queued after it.
func TestWakeChecksBesideChecksInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.New(storetest.DB(t), store.Options{SecretKey: make([]byte, 32)})
	require.NoError(t, err)
	pending := func(id string) (n int) {
		require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM psp_calls WHERE kind = ? AND object_id = ? AND status = 'pending'`,
			store.CallDevolucaoCheck, id).Scan(ctx, &n))
		return n
	}
	later := time.Now().Add(time.Hour)
	require.NoError(t, st.QueueCall(ctx, nil, store.CallDevolucaoCheck, "re_flying", time.Now()))
	claimed, err := st.ClaimPSPCalls(ctx, time.Now(), 10, time.Minute, "worker-1")
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.NoError(t, st.QueueCall(ctx, nil, store.CallDevolucaoCheck, "re_waiting", later))

	require.NoError(t, st.WakeChecks(ctx, store.CallDevolucaoCheck, []string{"re_flying", "re_waiting", "re_unknown"}))
	require.Equal(t, 2, pending("re_flying"), "the check in flight, and a new one after it")
	require.Equal(t, 1, pending("re_waiting"), "a waiting check is woken, not doubled")
	require.Zero(t, pending("re_unknown"))
	due, err := st.ClaimPSPCalls(ctx, time.Now().Add(time.Second), 10, time.Minute, "worker-2")
	require.NoError(t, err)
	require.Len(t, due, 2, "both due now")

	require.NoError(t, st.WakeChecks(ctx, store.CallDevolucaoCheck, []string{"re_flying"}))
	require.Equal(t, 3, pending("re_flying"), "every read in flight: one more after them")
}
