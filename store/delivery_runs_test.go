package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/ids"
)

// A success may ask for a run of its webhook's next deliveries: each gets
// as many as it asks for, in due order, none twice, under the token it
// gives. The worker holding a run is one request in flight: a claim counts
// the slots (a claimed token, and the runs it asked for after it) against
// the webhook's cap, not the deliveries held. And what a worker gives back
// is due again, its attempt uncounted, while its lease is still the
// worker's.
func TestRunsOfDeliveriesCountAsTheirWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 1, 12)
	wh, queue := webhooks[0], queues[webhooks[0].ID]
	later := time.Now().Add(time.Hour)

	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 2, Lease: time.Minute, PerWebhook: 8, Token: "lease_a"})
	require.NoError(t, err)
	require.Len(t, claimed, 2)
	require.Equal(t, []string{"lease_a.1", "lease_a.2"}, []string{*claimed[0].LeaseToken, *claimed[1].LeaseToken},
		"each claimed delivery is a worker's, numbered")

	batch := []store.Success{
		{Delivery: &claimed[0], Token: "lease_a.1", Attempt: succeeded(&claimed[0], wh),
			Next: &store.ClaimParams{Now: later, Lease: time.Minute, Limit: 4, Token: "lease_a.1/1"}},
		{Delivery: &claimed[1], Token: "lease_a.2", Attempt: succeeded(&claimed[1], wh),
			Next: &store.ClaimParams{Now: later, Lease: time.Minute, Limit: 3, Token: "lease_a.2/1"}},
	}
	finished := st.FinishSuccesses(ctx, batch)
	runIDs := func(f store.Finished) []string {
		require.NoError(t, f.Err)
		require.True(t, f.Held)
		var got []string
		for _, d := range f.Next {
			got = append(got, d.ID)
			require.Equal(t, wh.ID, d.Webhook.ID)
			require.Equal(t, d.EventID, d.Event.ID)
			require.Equal(t, 1, d.Attempts)
		}
		return got
	}
	require.Equal(t, []string{queue[2].ID, queue[3].ID, queue[4].ID, queue[5].ID}, runIDs(finished[0]))
	require.Equal(t, []string{queue[6].ID, queue[7].ID, queue[8].ID}, runIDs(finished[1]))
	for _, d := range finished[0].Next {
		require.Equal(t, "lease_a.1/1", *d.LeaseToken)
	}

	// Two workers hold seven deliveries: a cap of 3 leaves room for one more.
	more, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 5, Lease: time.Minute, PerWebhook: 3, Token: "lease_b"})
	require.NoError(t, err)
	require.Len(t, more, 1)
	require.Equal(t, queue[9].ID, more[0].ID)

	run := finished[0].Next
	n, err := st.ReleaseDeliveries(ctx, []string{run[0].ID, run[1].ID, run[2].ID, run[3].ID},
		[]string{"lease_a.1/1", "lease_a.1/1", "lease_a.1/1", "lease_b.1"})
	require.NoError(t, err)
	require.Equal(t, 3, n, "the last was not leased under the token given")
	var rows []store.Delivery
	require.NoError(t, st.DB().NewSelect().Model(&rows).Where("id IN (?)", []string{run[0].ID, run[1].ID, run[2].ID, run[3].ID}).
		Order("next_attempt_at", "id").Scan(ctx))
	for i, d := range rows {
		if i < 3 {
			require.Nil(t, d.LeaseToken)
			require.Nil(t, d.LeaseExpiresAt)
			require.Zero(t, d.Attempts)
		} else {
			require.Equal(t, "lease_a.1/1", *d.LeaseToken)
			require.Equal(t, 1, d.Attempts)
		}
	}
}

// succeeded is a 200 attempt of d.
func succeeded(d *store.Delivery, wh *store.Webhook) *store.DeliveryAttempt {
	status := 200
	return &store.DeliveryAttempt{
		ID: ids.New(ids.PrefixAttempt), DeliveryID: &d.ID, WebhookID: wh.ID, EventID: d.EventID,
		EventType: d.EventType, Attempt: d.Attempts, RequestURL: wh.URL, RequestBody: "{}",
		RequestHeaders: map[string]string{"Content-Type": "application/json"},
		ResponseStatus: &status, CreatedAt: time.Now().UTC(),
	}
}
