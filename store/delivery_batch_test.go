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

// Successes recorded together: each finishes only under its own lease, each
// chaining one leases a different next delivery (the earliest due after the
// finished ones), and every attempt is stored as sent and answered.
func TestBatchedSuccessesFinishAndLeaseDistinctNextDeliveries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 1, 10)
	wh := webhooks[0]
	queue := queues[wh.ID]

	later := time.Now().Add(time.Hour)
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 4, Lease: time.Minute, PerWebhook: 8, Token: "lease_one"})
	require.NoError(t, err)
	require.Len(t, claimed, 4)
	// The last in the queue was never leased: its "success" holds no lease.
	stale := queue[9]
	stale.Webhook, stale.Event = claimed[0].Webhook, claimed[0].Event
	finishing := []*store.Delivery{&claimed[0], &claimed[1], &claimed[2], &claimed[3], &stale}
	attempts := make([]*store.DeliveryAttempt, len(finishing))
	for i, d := range finishing {
		status := 200 + i
		attempts[i] = &store.DeliveryAttempt{
			ID: ids.New(ids.PrefixAttempt), DeliveryID: &d.ID, WebhookID: wh.ID, EventID: d.EventID,
			EventType: d.EventType, Attempt: d.Attempts, RequestURL: wh.URL,
			RequestHeaders: map[string]string{"Content-Type": "application/json", "X-Service-Delivery": "n" + d.ID},
			RequestBody:    `{"id":"` + d.EventID + `"}`, ResponseStatus: &status,
			ResponseHeaders: map[string][]string{"Server": {"test"}}, ResponseBody: []byte("ok"),
			DurationMS: 7 + i, CreatedAt: time.Now().UTC().Truncate(time.Millisecond),
		}
	}
	held, next, err := st.FinishTogether(ctx, finishing, "lease_one", attempts,
		&store.ClaimParams{Now: later, Lease: time.Minute, Token: "lease_two"})
	require.NoError(t, err)
	require.Equal(t, []bool{true, true, true, true, false}, held)
	require.Nil(t, next[4], "a success without its lease chains nothing")
	for i := range 4 {
		require.NotNil(t, next[i], "success %d chains", i)
		require.Equal(t, queue[4+i].ID, next[i].ID, "the earliest due after the finished ones, each once")
		require.Equal(t, queue[4+i].EventID, next[i].Event.ID)
		require.Equal(t, "payment.created", next[i].Event.Type)
		require.Equal(t, 1, next[i].Attempts)
		require.Equal(t, wh.ID, next[i].Webhook.ID)
	}

	var after []store.Delivery
	require.NoError(t, st.DB().NewSelect().Model(&after).Where("webhook_id = ?", wh.ID).
		Order("next_attempt_at", "id").Scan(ctx))
	// Claims come in due order, and payments made in one millisecond tie:
	// match each finished delivery to its own attempt by id.
	attemptOf := map[string]*store.DeliveryAttempt{}
	for _, a := range attempts {
		attemptOf[*a.DeliveryID] = a
	}
	for i, d := range after {
		switch {
		case i < 4:
			require.Equal(t, store.DeliverySucceeded, d.Status, "delivery %d", i)
			a := attemptOf[d.ID]
			require.NotNil(t, a, "delivery %d was one of the claimed", i)
			require.Equal(t, *a.ResponseStatus, *d.LastStatusCode)
			require.True(t, d.CompletedAt.Equal(a.CreatedAt))
			require.Nil(t, d.LeaseToken)
		case i < 8:
			require.Equal(t, store.DeliveryPending, d.Status, "delivery %d", i)
			require.Equal(t, "lease_two", *d.LeaseToken)
			require.Equal(t, 1, d.Attempts)
		default:
			require.Equal(t, store.DeliveryPending, d.Status, "delivery %d", i)
			require.Nil(t, d.LeaseToken, "delivery %d is untouched", i)
			require.Zero(t, d.Attempts)
		}
	}

	var stored []store.DeliveryAttempt
	require.NoError(t, st.DB().NewSelect().Model(&stored).Where("webhook_id = ?", wh.ID).Order("duration_ms").Scan(ctx))
	require.Len(t, stored, 5, "an attempt is recorded even when its lease was lost")
	for i, a := range stored {
		want := *attempts[i]
		require.Equal(t, want.ID, a.ID)
		require.Equal(t, *want.DeliveryID, *a.DeliveryID)
		require.Equal(t, want.RequestHeaders, a.RequestHeaders)
		require.Equal(t, want.ResponseHeaders, a.ResponseHeaders)
		require.Equal(t, want.RequestBody, a.RequestBody)
		require.Equal(t, *want.ResponseStatus, *a.ResponseStatus)
		require.Equal(t, "ok", string(a.ResponseBody))
		require.Nil(t, a.ErrorClass)
		require.True(t, want.CreatedAt.Equal(a.CreatedAt))
		raw, _ := json.Marshal(a.RequestHeaders)
		require.Contains(t, string(raw), "n"+*want.DeliveryID)
	}
}

// One batch can hold successes of several webhooks, some asking for a next
// delivery and some not: each chaining success gets its own webhook's next
// due delivery, in the batch's order, and an attempt without response
// headers or body is stored with neither.
func TestBatchedSuccessesAcrossWebhooks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 2, 6)

	later := time.Now().Add(time.Hour)
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 4, Lease: time.Minute, PerWebhook: 2, Token: "lease_one"})
	require.NoError(t, err)
	require.Len(t, claimed, 4)
	byWebhook := map[string][]*store.Delivery{}
	for i := range claimed {
		byWebhook[claimed[i].WebhookID] = append(byWebhook[claimed[i].WebhookID], &claimed[i])
	}
	a, b := webhooks[0].ID, webhooks[1].ID
	require.Len(t, byWebhook[a], 2)
	require.Len(t, byWebhook[b], 2)

	chain := &store.ClaimParams{Now: later, Lease: time.Minute, Token: "lease_two"}
	// b's first, a's first (chaining), a's second (not chaining), b's second.
	finishing := []*store.Delivery{byWebhook[b][0], byWebhook[a][0], byWebhook[a][1], byWebhook[b][1]}
	nexts := []*store.ClaimParams{chain, chain, nil, chain}
	attempts := make([]*store.DeliveryAttempt, len(finishing))
	for i, d := range finishing {
		status := 200
		attempts[i] = &store.DeliveryAttempt{
			ID: ids.New(ids.PrefixAttempt), DeliveryID: &d.ID, WebhookID: d.WebhookID, EventID: d.EventID,
			EventType: d.EventType, Attempt: d.Attempts, RequestURL: "https://example.com/hooks",
			RequestHeaders: map[string]string{"Content-Type": "application/json"},
			RequestBody:    `{"id":"` + d.EventID + `"}`, ResponseStatus: &status, DurationMS: i,
			CreatedAt: time.Now().UTC().Truncate(time.Millisecond),
		}
	}
	held, next, err := st.FinishEach(ctx, finishing, "lease_one", attempts, nexts)
	require.NoError(t, err)
	require.Equal(t, []bool{true, true, true, true}, held)
	require.Nil(t, next[2], "a success that asks for nothing chains nothing")
	require.Equal(t, queues[b][2].ID, next[0].ID, "b's first chaining success gets b's earliest due")
	require.Equal(t, queues[a][2].ID, next[1].ID, "a's only chaining success gets a's earliest due")
	require.Equal(t, queues[b][3].ID, next[3].ID, "b's second gets b's next")
	for _, i := range []int{0, 1, 3} {
		require.Equal(t, finishing[i].WebhookID, next[i].Webhook.ID)
		require.Equal(t, next[i].EventID, next[i].Event.ID)
		require.Equal(t, 1, next[i].Attempts)
	}

	for _, wh := range webhooks {
		var after []store.Delivery
		require.NoError(t, st.DB().NewSelect().Model(&after).Where("webhook_id = ?", wh.ID).
			Order("next_attempt_at", "id").Scan(ctx))
		leased := 0
		for _, d := range after {
			if d.LeaseToken != nil && *d.LeaseToken == "lease_two" {
				leased++
			}
		}
		require.Equal(t, map[string]int{a: 1, b: 2}[wh.ID], leased, "webhook %s", wh.ID)
	}
	var stored []store.DeliveryAttempt
	require.NoError(t, st.DB().NewSelect().Model(&stored).Where("delivery_id IS NOT NULL").Order("duration_ms").Scan(ctx))
	require.Len(t, stored, 4)
	for i, got := range stored {
		require.Equal(t, attempts[i].ID, got.ID)
		require.Nil(t, got.ResponseHeaders)
		require.Nil(t, got.ResponseBody)
		require.Equal(t, attempts[i].RequestHeaders, got.RequestHeaders)
	}
	var nulls int
	require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM delivery_attempts
		WHERE delivery_id IS NOT NULL AND response_headers IS NULL AND response_body IS NULL`).Scan(ctx, &nulls))
	require.Equal(t, 4, nulls, "no response headers or body is NULL, not an empty value")
}

// A success whose lease ran out unnoticed (nobody else took the delivery)
// still finishes it, and a batch never leases its own deliveries again: in
// the statement's snapshot they still look pending, their leases expired.
func TestBatchedSuccessesNeverLeaseTheirOwnDeliveries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 1, 5)
	wh := webhooks[0]
	queue := queues[wh.ID]

	now := time.Now()
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: now, Limit: 3, Lease: time.Minute, PerWebhook: 8, Token: "lease_one"})
	require.NoError(t, err)
	require.Len(t, claimed, 3)
	_, err = st.DB().NewRaw(`UPDATE webhook_deliveries SET lease_expires_at = ? WHERE lease_token = 'lease_one'`,
		now.Add(-time.Second)).Exec(ctx)
	require.NoError(t, err)

	finishing := []*store.Delivery{&claimed[0], &claimed[1], &claimed[2]}
	attempts := make([]*store.DeliveryAttempt, len(finishing))
	for i, d := range finishing {
		status := 200
		attempts[i] = &store.DeliveryAttempt{
			ID: ids.New(ids.PrefixAttempt), DeliveryID: &d.ID, WebhookID: wh.ID, EventID: d.EventID,
			EventType: d.EventType, Attempt: d.Attempts, RequestURL: wh.URL, RequestBody: "{}",
			RequestHeaders: map[string]string{"Content-Type": "application/json"},
			ResponseStatus: &status, DurationMS: i, CreatedAt: time.Now().UTC().Add(time.Second),
		}
	}
	held, next, err := st.FinishTogether(ctx, finishing, "lease_one", attempts,
		&store.ClaimParams{Now: now.Add(time.Second), Lease: time.Minute, Token: "lease_two"})
	require.NoError(t, err)
	require.Equal(t, []bool{true, true, true}, held)
	require.Equal(t, queue[3].ID, next[0].ID)
	require.Equal(t, queue[4].ID, next[1].ID)
	require.Nil(t, next[2], "nothing else is due")

	var after []store.Delivery
	require.NoError(t, st.DB().NewSelect().Model(&after).Where("webhook_id = ?", wh.ID).
		Order("next_attempt_at", "id").Scan(ctx))
	for i, d := range after {
		if i < 3 {
			require.Equal(t, store.DeliverySucceeded, d.Status, "delivery %d", i)
			require.Nil(t, d.LeaseToken, "delivery %d", i)
		} else {
			require.Equal(t, store.DeliveryPending, d.Status, "delivery %d", i)
			require.Equal(t, "lease_two", *d.LeaseToken, "delivery %d", i)
		}
	}
}

// A webhook changed while its delivery was out (a new URL, say): the next
// delivery leased for it carries the webhook as it is now.
func TestBatchedSuccessLeasesWithTheWebhookAsItIsNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 1, 3)
	wh := webhooks[0]
	later := time.Now().Add(time.Hour)
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 1, Lease: time.Minute, PerWebhook: 8, Token: "lease_one"})
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	time.Sleep(2 * time.Millisecond) // the update's updated_at differs from the creation's
	moved := "https://example.com/moved"
	_, err = st.UpdateWebhook(ctx, store.Scope{AccountID: wh.AccountID}, wh.ID, store.WebhookUpdate{URL: &moved})
	require.NoError(t, err)

	d := &claimed[0]
	status := 200
	attempt := &store.DeliveryAttempt{
		ID: ids.New(ids.PrefixAttempt), DeliveryID: &d.ID, WebhookID: wh.ID, EventID: d.EventID,
		EventType: d.EventType, Attempt: d.Attempts, RequestURL: wh.URL, RequestBody: "{}",
		RequestHeaders: map[string]string{"Content-Type": "application/json"}, ResponseStatus: &status,
		CreatedAt: time.Now().UTC(),
	}
	held, next, err := st.FinishTogether(ctx, []*store.Delivery{d}, "lease_one", []*store.DeliveryAttempt{attempt},
		&store.ClaimParams{Now: later, Lease: time.Minute, Token: "lease_two"})
	require.NoError(t, err)
	require.Equal(t, []bool{true}, held)
	require.NotNil(t, next[0])
	require.Equal(t, queues[wh.ID][1].ID, next[0].ID)
	require.Equal(t, moved, next[0].Webhook.URL, "the webhook read again, not the one the claim read")
}

// deliveryQueues makes an account with n webhooks subscribed to
// payment.created and then that many payments, and returns each webhook's
// deliveries in queue order (due time, then id).
func deliveryQueues(t *testing.T, n, payments int) (*store.Store, []*store.Webhook, map[string][]store.Delivery) {
	t.Helper()
	ctx := context.Background()
	f := newMoneyFixture(t)
	st := f.st
	webhooks := make([]*store.Webhook, n)
	for i := range webhooks {
		var err error
		webhooks[i], _, err = st.CreateWebhook(ctx, store.NewWebhook{Scope: f.scope, URL: "https://example.com/hooks",
			APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true})
		require.NoError(t, err)
	}
	for range payments {
		f.createPayment(1_000)
	}
	queues := map[string][]store.Delivery{}
	for _, wh := range webhooks {
		var q []store.Delivery
		require.NoError(t, st.DB().NewSelect().Model(&q).Where("webhook_id = ?", wh.ID).
			Order("next_attempt_at", "id").Scan(ctx))
		require.Len(t, q, payments)
		queues[wh.ID] = q
	}
	return st, webhooks, queues
}

// A finish tried again after its first try committed (only the answer was
// lost) is harmless when marked Again: no error, the lease no longer held,
// one attempt recorded. Unmarked, the same try is refused: the plain
// statement, the one every other finish uses, does not look for the attempt.
func TestRetriedSuccessFinishRecordsItsAttemptOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, _ := deliveryQueues(t, 1, 1)
	wh := webhooks[0]
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: time.Now(), Limit: 1, Lease: time.Minute, PerWebhook: 8, Token: "lease_one"})
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	d := &claimed[0]
	status := 200
	attempt := &store.DeliveryAttempt{
		ID: ids.New(ids.PrefixAttempt), DeliveryID: &d.ID, WebhookID: wh.ID, EventID: d.EventID,
		EventType: d.EventType, Attempt: d.Attempts, RequestURL: wh.URL, RequestBody: "{}",
		RequestHeaders: map[string]string{"Content-Type": "application/json"},
		ResponseStatus: &status, CreatedAt: time.Now().UTC(),
	}
	token := *d.LeaseToken
	first := st.FinishOne(ctx, d, token, attempt, false)
	require.NoError(t, first.Err)
	require.True(t, first.Held)
	require.Error(t, st.FinishOne(ctx, d, token, attempt, false).Err, "unmarked, the attempt is inserted again")
	again := st.FinishOne(ctx, d, token, attempt, true)
	require.NoError(t, again.Err)
	require.False(t, again.Held, "the first try released the lease")
	n, err := st.DB().NewSelect().Table("delivery_attempts").Where("delivery_id = ?", d.ID).Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// The leases of a claim whose answer was lost are given back by its token
// (each delivery's is the claim's, numbered): due again at once, the
// attempt uncounted; another token's are kept.
func TestReleaseLeasesByToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _, _ := deliveryQueues(t, 1, 3)
	now := time.Now()
	_, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: now, Limit: 2, Lease: time.Minute, PerWebhook: 8, Token: "lease_lost"})
	require.NoError(t, err)
	_, err = st.ClaimDeliveries(ctx, store.ClaimParams{Now: now, Limit: 1, Lease: time.Minute, PerWebhook: 8, Token: "lease_kept"})
	require.NoError(t, err)
	n, err := st.ReleaseLeases(ctx, "lease_lost")
	require.NoError(t, err)
	require.Equal(t, 2, n)
	var rows []store.Delivery
	require.NoError(t, st.DB().NewSelect().Model(&rows).Order("next_attempt_at", "id").Scan(ctx))
	require.Len(t, rows, 3)
	leased := 0
	for _, d := range rows {
		if d.LeaseToken != nil {
			leased++
			require.Equal(t, "lease_kept.1", *d.LeaseToken)
			require.Equal(t, 1, d.Attempts)
		} else {
			require.Equal(t, 0, d.Attempts)
			require.Nil(t, d.LeaseExpiresAt)
		}
	}
	require.Equal(t, 1, leased)
}
