package store_test

import (
	"context"
	"encoding/json"
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

// A batch's finish probes each finished delivery's key, however many
// deliveries its webhook has leased: the workers' runs lease dozens of a
// busy webhook's deliveries at once, and with statistics taken while few
// were leased, the planner read the partial index of leased deliveries
// (which "lease_token = token" implies) for each success instead: 5,000
// buffers a batch of 32.
func TestTheFinishProbesKeysWhateverIsLeased(t *testing.T) {
	t.Parallel()
	st, webhooks, _ := deliveryQueues(t, 1, 4)
	claimed := fourLeasedAmong(t, st, 2000)
	batch := make([]store.Success, len(claimed))
	for i := range claimed {
		batch[i] = store.Success{Delivery: &claimed[i], Token: *claimed[i].LeaseToken, Attempt: succeeded(&claimed[i], webhooks[0])}
	}
	hits := finishPlan(t, st, batch).cte("CTE finished").Hits
	require.Less(t, hits, 100, "buffers the finish of 4 read, with 2,000 other deliveries of their webhook leased")
}

// fourLeasedAmong leases four deliveries of st's one webhook and leases
// others more of its deliveries besides (copies of the first, under other
// workers' tokens), after statistics taken while none was leased.
func fourLeasedAmong(t *testing.T, st *store.Store, others int) []store.Delivery {
	t.Helper()
	ctx := context.Background()
	_, err := st.DB().ExecContext(ctx, "VACUUM ANALYZE webhook_deliveries") // none leased
	require.NoError(t, err)
	later := time.Now().Add(time.Hour)
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 4, Lease: 2 * time.Hour, PerWebhook: 8, Token: "lease_a"})
	require.NoError(t, err)
	require.Len(t, claimed, 4)
	_, err = st.DB().NewRaw(`INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
			status, attempts, next_attempt_at, created_at, updated_at, lease_token, lease_expires_at)
		SELECT d.id || '.' || g, d.event_id, d.webhook_id, d.account_id, d.livemode, d.event_type,
			'pending', 1, d.next_attempt_at, d.created_at, d.updated_at, 'lease_other.' || g % 8 || '/1', ?
		FROM webhook_deliveries d CROSS JOIN generate_series(1, ?) g
		WHERE d.id = ?`, later.Add(time.Hour), others, claimed[0].ID).Exec(ctx)
	require.NoError(t, err)
	return claimed
}

// A worker gives back what is left of its run by key too, however many
// deliveries its webhook has leased: sent as text and planned at every
// call, "lease_token = token" let the planner read the whole partial index
// of leased deliveries instead (438 buffers a call in the drain to four
// webhooks; here 12 buffers to find the four, and 305 in all before).
func TestAReleaseProbesKeysWhateverIsLeased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _, _ := deliveryQueues(t, 1, 4)
	claimed := fourLeasedAmong(t, st, 8000)
	ids, tokens, read := releaseRead(t, st, claimed)
	require.Less(t, read, 50, "buffers the release of 4 read to find them, with 8,000 other deliveries of their webhook leased")

	n, err := st.ReleaseDeliveries(ctx, ids, append([]string{"lease_stale"}, tokens[1:]...))
	require.NoError(t, err)
	require.Equal(t, 3, n, "the one whose lease is another's stays leased")
}

// And however many deliveries are due: with statistics taken while few
// were pending (a quiet hour, or the moment before a backlog was
// recorded), "status = 'pending'" let the planner read the whole partial
// index of pending deliveries once, keep it in memory and compare every
// delivery given back with every row of it: 3,000 buffers and 140-300 ms
// a call in the drain to four webhooks (auto_explain; BENCHMARKS.md, "A
// give-back that read the whole queue"). Here 12-20 buffers to find the
// four, and 1,840 before.
func TestAReleaseProbesKeysWhateverIsPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _, queues := deliveryQueues(t, 1, 5)
	for _, queue := range queues { // a history of finished deliveries besides four due
		_, err := st.DB().NewRaw(`INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
				status, attempts, next_attempt_at, created_at, updated_at, completed_at)
			SELECT d.id || '.done' || g, d.event_id, d.webhook_id, d.account_id, d.livemode, d.event_type,
				'succeeded', 1, d.next_attempt_at, d.created_at, d.updated_at, d.updated_at
			FROM webhook_deliveries d CROSS JOIN generate_series(1, 20000) g
			WHERE d.id = ?`, queue[4].ID).Exec(ctx)
		require.NoError(t, err)
		_, err = st.DB().NewRaw(`DELETE FROM webhook_deliveries WHERE id = ?`, queue[4].ID).Exec(ctx)
		require.NoError(t, err)
	}
	_, err := st.DB().ExecContext(ctx, "VACUUM ANALYZE webhook_deliveries") // four due
	require.NoError(t, err)
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: time.Now().Add(time.Hour), Limit: 4,
		Lease: 2 * time.Hour, PerWebhook: 8, Token: "lease_a"})
	require.NoError(t, err)
	require.Len(t, claimed, 4)
	_, err = st.DB().NewRaw(`INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
			status, attempts, next_attempt_at, created_at, updated_at)
		SELECT d.id || '.' || g, d.event_id, d.webhook_id, d.account_id, d.livemode, d.event_type,
			'pending', 0, d.next_attempt_at, d.created_at, d.updated_at
		FROM webhook_deliveries d CROSS JOIN generate_series(1, 8000) g
		WHERE d.id = ?`, claimed[0].ID).Exec(ctx)
	require.NoError(t, err)
	ids, tokens, read := releaseRead(t, st, claimed)
	require.Less(t, read, 50, "buffers the release of 4 read to find them, with 8,000 other deliveries due")

	n, err := st.ReleaseDeliveries(ctx, ids, tokens)
	require.NoError(t, err)
	require.Equal(t, 4, n)
}

// releaseRead gives back the claimed deliveries under EXPLAIN, as the
// dispatcher does (rolled back after), and answers their ids, tokens and
// the buffers the give-back read to find them: the plan under its update.
func releaseRead(t *testing.T, st *store.Store, claimed []store.Delivery) (ids, tokens []string, read int) {
	t.Helper()
	for _, d := range claimed {
		ids, tokens = append(ids, d.ID), append(tokens, *d.LeaseToken)
	}
	raw, err := st.ReleasePlanJSON(context.Background(), ids, tokens)
	require.NoError(t, err)
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	require.NoError(t, json.Unmarshal(raw, &plans))
	m := plans[0].Plan.modified()
	require.Equal(t, "ModifyTable", m.NodeType, "the give-back changes no row")
	require.NotEmpty(t, m.Plans)
	t.Logf("the release of %d read %d buffers to find them, %d in all", len(ids), m.Plans[0].Hits, plans[0].Plan.Hits)
	return ids, tokens, m.Plans[0].Hits
}

// A batch's finish is never compiled with LLVM. Its generic plan's estimate
// can pass jit_above_cost (a CTE's rows are guesses, and each path its
// settings turn off adds a huge cost), and PostgreSQL then compiled it at
// every execution: 2.5 s to finish one success, in the fault suite.
func TestTheFinishIsNeverCompiled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, _ := deliveryQueues(t, 1, 3)
	batch := claimedSuccesses(t, st, webhooks[0], 2, func(int) int { return 1 })
	raw, err := st.FinishPlanJSON(ctx, batch, store.Compiling)
	require.NoError(t, err)
	var plans []struct {
		Plan struct {
			Rows int `json:"Actual Rows"`
		} `json:"Plan"`
		JIT json.RawMessage `json:"JIT"`
	}
	require.NoError(t, json.Unmarshal(raw, &plans))
	require.Equal(t, 2, plans[0].Plan.Rows, "a row per success, the first with the next delivery")
	require.Empty(t, string(plans[0].JIT), "compiled, where every plan past a cost of 0 would be")
}

// A batch's finish pairs its successes with what became of them (finished,
// chained) by their numbers in sets, never by joining one CTE to another
// on them: hash joins are off for it (pg.KeyProbePlan), so each such join
// was a nested loop comparing every pair, a thousand a join for a batch of
// 32, four joins a batch, a fifth of the statement's time in the drains
// (BENCHMARKS.md, "Encoded into a kept buffer").
func TestAFinishComparesNoPairsOfItsBatch(t *testing.T) {
	t.Parallel()
	st, webhooks, _ := deliveryQueues(t, 1, 96)
	batch := claimedSuccesses(t, st, webhooks[0], 32, func(i int) int {
		return 2 * (1 - i%2) // half of them chain: both kinds of answer row
	})
	plan := finishPlan(t, st, batch)
	require.Equal(t, 32, plan.cte("CTE finished").Rows, "successes finished")
	require.Equal(t, 32, plan.cte("CTE leased").Rows, "next deliveries leased, two for each of 16")
	require.Less(t, plan.removedByJoinFilter(), 32, "pairs a join compared and dropped")
}

// claimedSuccesses claims n of wh's due deliveries (an hour from now, no
// cap in the way) and makes each a success asking for next(i) of its
// webhook's next deliveries (none when 0).
func claimedSuccesses(t *testing.T, st *store.Store, wh *store.Webhook, n int, next func(i int) int) []store.Success {
	t.Helper()
	later := time.Now().Add(time.Hour)
	claimed, err := st.ClaimDeliveries(context.Background(),
		store.ClaimParams{Now: later, Limit: n, Lease: time.Hour, PerWebhook: n, Token: "lease_a"})
	require.NoError(t, err)
	require.Len(t, claimed, n)
	batch := make([]store.Success, n)
	for i := range claimed {
		token := *claimed[i].LeaseToken
		batch[i] = store.Success{Delivery: &claimed[i], Token: token, Attempt: succeeded(&claimed[i], wh)}
		if want := next(i); want > 0 {
			batch[i].Next = &store.ClaimParams{Now: later, Lease: time.Hour, Limit: want, Token: token + "/1"}
		}
	}
	return batch
}
