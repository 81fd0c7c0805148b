package store_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/ids"
	"payments/store/storetest"
)

// A claim reads the webhooks that have something pending, not every webhook
// of the platform: a hundred more webhooks with nothing to send leave its
// buffer reads where they were (reading every enabled webhook probed each
// partition's indexes once per webhook: 22 ms a claim with 1,000 webhooks
// at 2M payments). It still takes the due deliveries of every enabled
// webhook that has them, across gaps of idle and disabled ones.
func TestClaimReadsOnlyBusyWebhooks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 4, 2)
	idle, disabled := webhooks[1], webhooks[2]
	_, err := st.DB().NewRaw("UPDATE webhook_deliveries SET status = 'succeeded', completed_at = now() WHERE webhook_id = ?", idle.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = st.DB().NewRaw("UPDATE webhooks SET enabled = false WHERE id = ?", disabled.ID).Exec(ctx)
	require.NoError(t, err)

	later := time.Now().Add(time.Hour)
	before := claimBufferHits(t, st, later)
	for i := range 100 { // a merchant each, as on a platform
		acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja", Email: fmt.Sprintf("loja%d@example.com", i), FeeBPS: store.DefaultFeeBPS})
		require.NoError(t, err)
		_, _, err = st.CreateWebhook(ctx, store.NewWebhook{Scope: store.Scope{AccountID: acct.ID}, URL: "https://example.com/idle",
			APIVersion: "v2", Events: []string{"*"}, Enabled: true})
		require.NoError(t, err)
	}
	after := claimBufferHits(t, st, later)
	require.Less(t, after-before, 50, "buffers read by a claim: %d with 4 webhooks, %d with 100 idle ones more", before, after)

	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 20, Lease: time.Minute, PerWebhook: 8, Token: "lease_one"})
	require.NoError(t, err)
	var got []string
	for _, d := range claimed {
		got = append(got, d.ID)
	}
	var want []string
	for _, wh := range []*store.Webhook{webhooks[0], webhooks[3]} {
		for _, d := range queues[wh.ID] {
			want = append(want, d.ID)
		}
	}
	require.ElementsMatch(t, want, got, "the pending deliveries of the enabled webhooks, none of the idle or disabled one")
}

// A claim walks each webhook's due deliveries in order and stops at what it
// takes, however many are due, even when the table's statistics were taken
// while few were pending (the quiet hour before a receiver's outage): with
// them, the planner appended both partitions' due rows and sorted them all
// to take a few, and each claim of a backlog of 40,000 read 1,700 buffers.
func TestClaimCostDoesNotGrowWithTheBacklog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, _ := deliveryQueues(t, 1, 10) // more than the claim takes (8)
	copies := func(status string, from, to int) {
		_, err := st.DB().NewRaw(`INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
				status, attempts, next_attempt_at, created_at, updated_at)
			SELECT d.id || '.' || g, d.event_id, d.webhook_id, d.account_id, d.livemode, d.event_type,
				?, 0, d.next_attempt_at + g * interval '1 millisecond', d.created_at, d.updated_at
			FROM webhook_deliveries d CROSS JOIN generate_series(?::int, ?::int) g
			WHERE d.id = (SELECT min(id) FROM webhook_deliveries WHERE webhook_id = ?)`, status, from, to, webhooks[0].ID).Exec(ctx)
		require.NoError(t, err)
	}
	copies("succeeded", 1, 5000) // a day of deliveries made
	setStatus := func(status string) {
		_, err := st.DB().NewRaw("UPDATE webhook_deliveries SET status = ? WHERE webhook_id = ? AND id NOT LIKE '%.%'",
			status, webhooks[0].ID).Exec(ctx)
		require.NoError(t, err)
	}
	setStatus("succeeded") // and none pending when the statistics were taken
	_, err := st.DB().ExecContext(ctx, "VACUUM ANALYZE webhook_deliveries")
	require.NoError(t, err)
	setStatus("pending")
	later := time.Now().Add(time.Hour)
	few := claimBufferHits(t, st, later, "due")
	copies("pending", 5001, 10000) // the receiver's outage
	many := claimBufferHits(t, st, later, "due")
	require.Less(t, many, few+10, "buffers the claim's due deliveries read: %d with 10 due, %d with 5,010", few, many)
}

// claimBufferHits runs the claim under EXPLAIN (ANALYZE, BUFFERS) in a
// transaction rolled back, after the statement that precedes it (its lock
// and settings), and returns the shared buffers its execution hit (the
// second run's: the first warms the connection's caches), or those of the
// CTE named.
func claimBufferHits(t *testing.T, st *store.Store, now time.Time, cte ...string) int {
	t.Helper()
	plan := claimPlan(t, st, now, 20)
	if len(cte) > 0 {
		return plan.cte("CTE " + cte[0]).Hits
	}
	return plan.Hits
}

// claimPlan is the plan of a claim of limit deliveries (a cap of 8 a
// webhook, 32 workers) run twice under EXPLAIN (ANALYZE, BUFFERS) in
// transactions rolled back: the second run's, its caches warm.
func claimPlan(t *testing.T, st *store.Store, now time.Time, limit int) planNode {
	t.Helper()
	raws, err := st.ExplainGeneric(context.Background(), []string{store.ClaimLockSQL}, store.ClaimSQL, 2,
		now, 8, limit, "lease_explain", now.Add(time.Minute), now, "lease_explain", 32, 4, 4, store.QueuedBefore())
	require.NoError(t, err)
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	require.NoError(t, json.Unmarshal(raws[1], &plans))
	return plans[0].Plan
}

// finishPlan is the plan of batch's finish, run once under EXPLAIN
// (ANALYZE, BUFFERS) as the dispatcher runs it, rolled back.
func finishPlan(t *testing.T, st *store.Store, batch []store.Success) planNode {
	t.Helper()
	raw, err := st.FinishPlanJSON(context.Background(), batch)
	require.NoError(t, err)
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	require.NoError(t, json.Unmarshal(raw, &plans))
	return plans[0].Plan
}

// pastFewWebhooks gives scope's account 16 more enabled webhooks with
// nothing to send (subscribed to refunds no test makes), so that claims
// take their path past fewWebhooks.
func pastFewWebhooks(t *testing.T, st *store.Store, scope store.Scope) {
	t.Helper()
	for range 16 {
		_, _, err := st.CreateWebhook(context.Background(), store.NewWebhook{Scope: scope, URL: "https://example.com/refunds",
			APIVersion: "v2", Events: []string{"payment.refunded"}, Enabled: true})
		require.NoError(t, err)
	}
}

// planNode is a node of a plan in EXPLAIN's JSON, with its children.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	IndexName string     `json:"Index Name"`
	Relation  string     `json:"Relation Name"`
	Loops     int        `json:"Actual Loops"`
	Hits      int        `json:"Shared Hit Blocks"`
	Subplan   string     `json:"Subplan Name"`
	Rows      int        `json:"Actual Rows"`
	Removed   int        `json:"Rows Removed by Join Filter"`
	Plans     []planNode `json:"Plans"`
}

// relations is every table (partition) n and the nodes below it read
// (a node of the plan never run reads nothing).
func (n planNode) relations() map[string]bool {
	rels := map[string]bool{}
	if n.Relation != "" && n.Loops > 0 {
		rels[n.Relation] = true
	}
	for _, c := range n.Plans {
		for rel := range c.relations() {
			rels[rel] = true
		}
	}
	return rels
}

// removedByJoinFilter is how many pairs the joins of n and below compared
// and dropped.
func (n planNode) removedByJoinFilter() int {
	removed := n.Removed
	for _, c := range n.Plans {
		removed += c.removedByJoinFilter()
	}
	return removed
}

// cte is the node that computes the CTE named (EXPLAIN's "CTE due"), or an empty one.
func (n planNode) cte(name string) planNode {
	return n.find(func(m planNode) bool { return m.Subplan == name })
}

// modified is the first data-modifying node of n's plan, or an empty one.
func (n planNode) modified() planNode {
	return n.find(func(m planNode) bool { return m.NodeType == "ModifyTable" })
}

// find is the first node of n's plan, n itself first and then depth first,
// that matches, or an empty one.
func (n planNode) find(match func(planNode) bool) planNode {
	if match(n) {
		return n
	}
	for _, c := range n.Plans {
		if found := c.find(match); found.NodeType != "" {
			return found
		}
	}
	return planNode{}
}

// The claim is planned once on the connection claims run on, and its
// generic plan serves every claim after: left to PostgreSQL's choice, the
// generic plan's estimate was a little larger than the custom plans' (both
// huge: the turns' sorts), and every claim was planned afresh, 2.5-5.5 ms
// of a claim's time.
func TestAClaimIsPlannedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _, _ := deliveryQueues(t, 2, 12)
	later := time.Now().Add(time.Hour)
	for i := range 12 {
		_, err := st.Claim(ctx, store.ClaimParams{Now: later.Add(time.Duration(i) * time.Second), Limit: 1,
			Lease: time.Minute, PerWebhook: 8, Token: fmt.Sprintf("lease_%d", i), Workers: 32, SlowLane: 4})
		require.NoError(t, err)
	}
	generic, custom, err := st.ClaimPlans(ctx)
	require.NoError(t, err)
	require.Equal(t, [2]int64{12, 0}, [2]int64{generic, custom}, "claims served by the generic plan, and planned afresh")
}

// A claim locks the deliveries it leases and no others. It reads each busy
// webhook's earliest due ones to choose among them, and it used to lock
// every one it read (FOR UPDATE SKIP LOCKED in that read): with 1,000 busy
// webhooks a claim of one delivery wrote a row lock into 1,000 rows, most
// of a delivery's PostgreSQL CPU in that drain (BENCHMARKS.md, "A claim
// locks what it leases"). A locked row keeps its locker in xmax after the
// claim commits; the rows the claim did not lease must show none.
func TestAClaimLocksOnlyWhatItLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _, _ := deliveryQueues(t, 3, 4)
	later := time.Now().Add(time.Hour)
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 2, Lease: time.Minute, PerWebhook: 8, Token: "lease_two"})
	require.NoError(t, err)
	require.Len(t, claimed, 2)
	var locked []string
	require.NoError(t, st.DB().NewRaw(`SELECT id FROM webhook_deliveries WHERE xmax::text <> '0' AND lease_token IS NULL`).Scan(ctx, &locked))
	require.Empty(t, locked, "deliveries the claim read and did not lease, locked")
	var leased int
	require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM webhook_deliveries WHERE lease_token LIKE 'lease_two.%'`).Scan(ctx, &leased))
	require.Equal(t, 2, leased)
}

// Past fewWebhooks, a claim reads the due deliveries of the webhooks a
// worker holds (their slots) and, of the idle ones, only the earliest few of
// each account that it could take: at 1,000 busy webhooks a claim of 8 read
// the earliest of each, a thousand probes to lease eight. Those it leaves
// unread could not be taken: as many of their account's, due before them,
// come first. What it leases is what reading them all leased; a webhook
// alone with due deliveries still fills its room.
func TestAClaimAtManyWebhooksReadsWhatItCanTake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 20, 10)
	later := time.Now().Add(time.Hour)
	require.Equal(t, 10, claimPlan(t, st, later, 10).cte("CTE due").Rows, "due deliveries read for a claim of 10 from 20 idle webhooks")

	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 10, Lease: time.Minute, PerWebhook: 8, Token: "lease_a"})
	require.NoError(t, err)
	require.Len(t, claimed, 10)
	heads := map[string]store.Delivery{}
	for _, wh := range webhooks {
		heads[queues[wh.ID][0].ID] = queues[wh.ID][0]
	}
	seen := map[string]bool{}
	for _, d := range claimed {
		_, head := heads[d.ID]
		require.True(t, head, "a webhook's earliest due delivery")
		require.False(t, seen[d.WebhookID], "one of each webhook")
		seen[d.WebhookID] = true
	}

	// Ten webhooks are worked now: a claim reads the next of each, and of
	// the ten idle ones the four it may take, the earliest.
	require.Equal(t, 14, claimPlan(t, st, later, 4).cte("CTE due").Rows, "due deliveries read for a claim of 4 beside 10 worked webhooks")
	var idle []store.Delivery
	for _, d := range heads {
		if !seen[d.WebhookID] {
			idle = append(idle, d)
		}
	}
	slices.SortFunc(idle, func(a, b store.Delivery) int {
		return cmp.Or(a.NextAttemptAt.Compare(b.NextAttemptAt), cmp.Compare(a.ID, b.ID))
	})
	more, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 4, Lease: time.Minute, PerWebhook: 8, Token: "lease_b"})
	require.NoError(t, err)
	var got, want []string
	for _, d := range more {
		got = append(got, d.ID)
	}
	for _, d := range idle[:4] {
		want = append(want, d.ID)
	}
	require.Equal(t, want, got, "the four earliest idle webhooks' first deliveries")
	for _, d := range more {
		seen[d.WebhookID] = true
	}

	var lone *store.Webhook // one no claim took from: none of its deliveries is leased
	for _, wh := range webhooks {
		if !seen[wh.ID] {
			lone = wh
		}
	}
	_, err = st.DB().NewRaw("UPDATE webhook_deliveries SET status = 'succeeded', completed_at = now(), lease_token = NULL, "+
		"lease_expires_at = NULL WHERE webhook_id <> ?", lone.ID).Exec(ctx)
	require.NoError(t, err)
	alone, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 10, Lease: time.Minute, PerWebhook: 8, Token: "lease_c"})
	require.NoError(t, err)
	got, want = nil, nil
	for _, d := range alone {
		got = append(got, d.ID)
	}
	for _, d := range queues[lone.ID][:8] {
		want = append(want, d.ID)
	}
	require.Equal(t, want, got, "a webhook alone with due deliveries fills its room")
}

// A claim reads the live leases through the partial index of leased
// deliveries, whatever the statistics say: its plan is made once per
// connection, and one made while the month's partition was small (a fresh
// month, a fresh database) read the leases by scanning the partition
// whole, then at every claim as the month filled up (the e2e phase of make
// bench: 16 of 49 sampled claims, 40 buffers each and growing; a month of
// deliveries is millions of rows). Here the statistics were taken while
// the four deliveries there were were all leased.
func TestAClaimReadsLeasesByTheirIndexWhateverTheStatistics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _, _ := deliveryQueues(t, 2, 2)
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: time.Now(), Limit: 4, Lease: time.Hour, PerWebhook: 8, Token: "lease_a"})
	require.NoError(t, err)
	require.Len(t, claimed, 4)
	_, err = st.DB().ExecContext(ctx, "VACUUM ANALYZE webhook_deliveries") // four rows, all leased
	require.NoError(t, err)
	_, err = st.DB().NewRaw(`INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
			status, attempts, next_attempt_at, created_at, updated_at, completed_at)
		SELECT d.id || '.' || g, d.event_id, d.webhook_id, d.account_id, d.livemode, d.event_type,
			'succeeded', 1, d.next_attempt_at, d.created_at, d.updated_at, d.created_at
		FROM (SELECT * FROM webhook_deliveries LIMIT 1) d CROSS JOIN generate_series(1, 20000) g`).Exec(ctx)
	require.NoError(t, err)

	leases := claimPlan(t, st, time.Now().Add(time.Minute), 4).cte("CTE leases")
	var scans []string
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.Relation != "" && n.Loops > 0 {
			scans = append(scans, n.NodeType+" "+n.IndexName)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(leases)
	require.NotEmpty(t, scans)
	for _, scan := range scans {
		require.Regexp(t, `^Index (Only )?Scan webhook_deliveries_\d{4}_\d{2}_lease_expires_at_idx$`, scan, "how the claim reads the leases")
	}
	t.Logf("the leases read %d buffers", leases.Hits)
	require.Less(t, leases.Hits, 20, "buffers the claim's leases read, with 20,000 finished deliveries besides")
}

// A claim and a run read no partition of the months made ahead: their
// indexes are empty, and a claim probed each once per busy webhook in each
// of its walks, a third of its buffers at 1,000 webhooks (BENCHMARKS.md,
// "The month ahead").
func TestClaimsAndRunsReadNoMonthAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, _ := deliveryQueues(t, 20, 3)
	now := time.Now()
	require.NoError(t, st.EnsurePartitions(ctx, now, now.AddDate(0, 3, 0)))
	// The months that start more than an hour from now (the margin a
	// delivery's clock has): on a month's last hour the next one is read.
	var ahead []string
	for m := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0); m.Before(now.AddDate(0, 4, 0)); m = m.AddDate(0, 1, 0) {
		if m.After(now.Add(time.Hour)) {
			ahead = append(ahead, "webhook_deliveries_"+m.Format("2006_01"))
		}
	}
	require.GreaterOrEqual(t, len(ahead), 2)

	claim := claimPlan(t, st, now.Add(time.Minute), 4)
	require.Equal(t, 4, claim.Rows, "deliveries claimed")
	read := claim.relations()
	require.True(t, read["webhook_deliveries_"+now.UTC().Format("2006_01")], "the month's deliveries read: %v", read)
	for _, month := range ahead {
		require.False(t, read[month], "a month ahead read by the claim: %s", month)
	}

	batch := claimedSuccesses(t, st, webhooks[0], 1, func(int) int { return 2 })
	finish := finishPlan(t, st, batch)
	require.Equal(t, 2, finish.Rows, "the run's next deliveries")
	read = finish.relations()
	for _, month := range ahead {
		require.False(t, read[month], "a month ahead read by the run: %s", month)
	}
}

// orderedBehindItsObject makes an ordered webhook whose earliest pending
// delivery waits for an earlier one of its object (retrying in an hour),
// and returns the webhook and that held delivery.
func orderedBehindItsObject(t *testing.T, f *moneyFixture) (*store.Webhook, string) {
	t.Helper()
	ctx := context.Background()
	wh, _, err := f.st.CreateWebhook(ctx, store.NewWebhook{Scope: f.scope, URL: "https://example.com/ordered",
		APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true, Ordered: true})
	require.NoError(t, err)
	f.createPayment(1_000)
	f.createPayment(2_000)
	var queue []store.Delivery
	require.NoError(t, f.st.DB().NewSelect().Model(&queue).Where("webhook_id = ?", wh.ID).Order("created_at", "id").Scan(ctx))
	require.Len(t, queue, 2)
	require.NotNil(t, queue[0].OrderKey)
	// The second is about the first's object (as a payment's paid event is
	// about its created one), and the first waits for its retry.
	_, err = f.st.DB().NewRaw("UPDATE webhook_deliveries SET order_key = ?, next_attempt_at = now() + interval '2 hours', attempts = 1 "+
		"WHERE id = ?", *queue[0].OrderKey, queue[0].ID).Exec(ctx)
	require.NoError(t, err)
	_, err = f.st.DB().NewRaw("UPDATE webhook_deliveries SET order_key = ? WHERE id = ?", *queue[0].OrderKey, queue[1].ID).Exec(ctx)
	require.NoError(t, err)
	return wh, queue[1].ID
}

// An ordered webhook is probed by every claim, never counted among the
// idle ones: its earliest delivery may wait for an earlier one of its
// object, and an idle webhook first in its account's turn that gave
// nothing would hold back the account's others until that retry.
func TestAClaimTakesBesideAHeldOrderedWebhook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newMoneyFixture(t)
	other, _, err := f.st.CreateWebhook(ctx, store.NewWebhook{Scope: f.scope, URL: "https://example.com/other",
		APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true})
	require.NoError(t, err)
	pastFewWebhooks(t, f.st, f.scope)
	ordered, held := orderedBehindItsObject(t, f)
	// The other webhook's deliveries are due after the held one.
	_, err = f.st.DB().NewRaw("UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 second' WHERE webhook_id = ?",
		other.ID).Exec(ctx)
	require.NoError(t, err)

	later := time.Now().Add(time.Minute)
	claimed, err := f.st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 1, Lease: time.Minute, PerWebhook: 8, Token: "lease_one"})
	require.NoError(t, err)
	require.Len(t, claimed, 1, "the ordered webhook's held delivery stood first in its account's turn")
	require.Equal(t, other.ID, claimed[0].WebhookID)

	// Unordered, its queued deliveries wait for one another no more.
	unordered := false
	_, err = f.st.UpdateWebhook(ctx, f.scope, ordered.ID, store.WebhookUpdate{Ordered: &unordered})
	require.NoError(t, err)
	var keys int
	require.NoError(t, f.st.DB().NewRaw("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND order_key IS NOT NULL",
		ordered.ID).Scan(ctx, &keys))
	require.Zero(t, keys, "order keys left on an unordered webhook's queue")
	claimed, err = f.st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 1, Lease: time.Minute, PerWebhook: 8, Token: "lease_two"})
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.Equal(t, held, claimed[0].ID, "the delivery that waited for its object's earlier one")
}

// A claim's deliveries carry their webhook as it is, and a webhook whose
// row no one wrote since a claim read it is not read again: a claim is one
// round trip, where it was two (the claim, then its webhooks). Any write
// of the row is read at the next claim: a person's change, and the lane,
// which moves no updated_at.
func TestAClaimReadsAWebhookAgainOnlyWhenItChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	proxy, proxied := storetest.StartProxy(t, storetest.URL(t))
	f := oneConnectionFixture(t, proxied)
	st := f.st
	wh, _, err := st.CreateWebhook(ctx, store.NewWebhook{Scope: f.scope, URL: "https://example.com/hooks",
		APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true})
	require.NoError(t, err)
	for range 6 {
		f.createPayment(1_000)
	}
	later := time.Now().Add(time.Hour)
	claim := func(what string, roundTrips int64) *store.Webhook {
		t.Helper()
		before := proxy.Writes()
		claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 1, Lease: time.Minute, PerWebhook: 8, Token: "lease_" + what})
		require.NoError(t, err)
		require.Len(t, claimed, 1, what)
		require.Equal(t, roundTrips, proxy.Writes()-before, "round trips of the claim %s", what)
		return claimed[0].Webhook
	}
	// The first prepares the statements on the connection.
	_, err = st.ClaimDeliveries(ctx, store.ClaimParams{Now: later, Limit: 1, Lease: time.Minute, PerWebhook: 8, Token: "lease_first"})
	require.NoError(t, err)

	moved := "https://example.com/moved"
	_, err = st.UpdateWebhook(ctx, f.scope, wh.ID, store.WebhookUpdate{URL: &moved})
	require.NoError(t, err)
	changed := claim("after a change", 2)
	require.Equal(t, moved, changed.URL)
	require.Same(t, changed, claim("unchanged", 1))

	require.NoError(t, st.SetWebhookSlow(ctx, wh.ID, true))
	slow := claim("after the lane moved", 2)
	require.NotNil(t, slow.SlowSince, "the lane as the claim saw it")
	require.Equal(t, slow.UpdatedAt, changed.UpdatedAt, "a lane is no change of the webhook's")

	// A change whose updated_at is the one before (a clock that stands
	// still, or another host's behind this one's) is read all the same.
	_, err = st.DB().NewRaw("UPDATE webhooks SET url = 'https://example.com/again' WHERE id = ?", wh.ID).Exec(ctx)
	require.NoError(t, err)
	require.Equal(t, "https://example.com/again", claim("after a change at the same time", 2).URL)
	claim("unchanged again", 1)
}

// A claim says whether it may have left due deliveries behind (More): for
// a webhook's cap, for its limit, and behind an ordered webhook's delivery
// in flight; and says it left nothing when nothing is due but what it took
// or what is in flight.
func TestAClaimSaysWhetherItLeftWorkBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	// claim leases up to limit of st's deliveries and checks it got n, and
	// whether it says it left some behind.
	claim := func(st *store.Store, limit, perWebhook, n int, more bool, why string) {
		t.Helper()
		c, err := st.Claim(ctx, store.ClaimParams{Now: later, Limit: limit, Lease: time.Minute, PerWebhook: perWebhook, Token: "lease_" + ids.New("x")})
		require.NoError(t, err)
		require.Len(t, c.Deliveries, n, why)
		require.Equal(t, more, c.More, why)
	}

	capped, _, _ := deliveryQueues(t, 1, 3)
	claim(capped, 10, 2, 2, true, "the third waits for the cap")
	claim(capped, 10, 2, 0, true, "still held by the cap")

	limited, _, _ := deliveryQueues(t, 2, 1)
	claim(limited, 1, 8, 1, true, "the other webhook's waits for the limit")
	claim(limited, 10, 8, 1, false, "the last one taken")
	claim(limited, 10, 8, 0, false, "nothing due but what is in flight")

	ordered, webhooks, _ := deliveryQueues(t, 1, 1)
	_, err := ordered.DB().NewRaw("UPDATE webhooks SET ordered = true WHERE id = ?", webhooks[0].ID).Exec(ctx)
	require.NoError(t, err)
	claim(ordered, 10, 8, 1, true, "an ordered webhook's next of the object waits for the one in flight")
}
