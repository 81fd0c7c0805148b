package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
)

// Successes heal their webhooks' failure streaks in the webhooks' key
// order, the order every writer of several webhooks keeps. Healed in
// another order, two finishes healing the same failing webhooks waited on
// each other in a circle; PostgreSQL aborted one (deadlock detected), and
// its successes, sent and answered, stayed unrecorded until their leases
// ran out and were sent again: the fault suite's duplicate as the receiver
// came back from its outage.
func TestSuccessesHealTheirWebhooksInKeyOrder(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"batch in key order", "batch in reverse"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, webhooks := webhooksInKeyOrder(t)
			_, err := st.DB().NewRaw(`UPDATE webhooks SET failing_since = now(), failures_since = 3`).Exec(ctx)
			require.NoError(t, err)
			claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: time.Now(), Limit: len(webhooks), Lease: time.Minute,
				PerWebhook: 1, Token: "lease_heal"})
			require.NoError(t, err)
			require.Len(t, claimed, len(webhooks))
			slices.SortFunc(claimed, func(a, b store.Delivery) int { return strings.Compare(a.WebhookID, b.WebhookID) })
			if name == "batch in reverse" {
				slices.Reverse(claimed)
			}
			batch := make([]store.Success, len(claimed))
			for i := range claimed {
				wh := webhooks[slices.IndexFunc(webhooks, func(w *store.Webhook) bool { return w.ID == claimed[i].WebhookID })]
				batch[i] = store.Success{Delivery: &claimed[i], Token: *claimed[i].LeaseToken, Attempt: succeeded(&claimed[i], wh)}
			}
			var finished []store.Finished
			besideAWriterInKeyOrder(t, st, webhooks, func() { finished = st.FinishSuccesses(ctx, batch) })
			for i, f := range finished {
				require.NoError(t, f.Err, "success %d", i)
				require.True(t, f.Held, "success %d", i)
			}
			var failing int
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM webhooks WHERE failing_since IS NOT NULL OR failures_since <> 0`).Scan(ctx, &failing))
			require.Zero(t, failing, "every webhook healed")
		})
	}
}

// webhooksInKeyOrder makes eight webhooks with a due delivery each, and
// returns them in key order. Eight: a statement that locks them in another
// order (the batch's, a hash's) nearly always takes one past the lowest
// before the lowest.
func webhooksInKeyOrder(t *testing.T) (*store.Store, []*store.Webhook) {
	t.Helper()
	st, webhooks, _ := deliveryQueues(t, 8, 1)
	slices.SortFunc(webhooks, func(a, b *store.Webhook) int { return strings.Compare(a.ID, b.ID) })
	return st, webhooks
}

// besideAWriterInKeyOrder runs write while another transaction holds the
// lowest of webhooks and, once write waits for it, writes all the others
// and commits. Had write taken any of the others before the lowest, the
// two would wait on each other and PostgreSQL would abort one of them.
func besideAWriterInKeyOrder(t *testing.T, st *store.Store, webhooks []*store.Webhook, write func()) {
	t.Helper()
	ctx := context.Background()
	db := st.DB()
	other, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = other.Rollback() }()
	_, err = other.ExecContext(ctx, `SELECT 1 FROM webhooks WHERE id = ? FOR UPDATE`, webhooks[0].ID)
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		write()
	}()
	require.Eventually(t, func() bool {
		var waiting int
		err := db.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &waiting)
		return err == nil && waiting == 1
	}, 10*time.Second, 5*time.Millisecond, "the write waits for the lowest webhook")
	_, err = other.ExecContext(ctx, `UPDATE webhooks SET updated_at = updated_at WHERE id <> ?`, webhooks[0].ID)
	require.NoError(t, err, "the other writer takes the other webhooks: the write holds none of them")
	require.NoError(t, other.Commit())
	<-done
}
