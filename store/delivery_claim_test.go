package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
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

// claimBufferHits runs the claim under EXPLAIN (ANALYZE, BUFFERS) in a
// transaction rolled back, and returns the shared buffers its execution
// hit (the second run's: the first warms the connection's caches).
func claimBufferHits(t *testing.T, st *store.Store, now time.Time) int {
	t.Helper()
	ctx := context.Background()
	var hits int
	for range 2 {
		tx, err := st.DB().DB.BeginTx(ctx, nil)
		require.NoError(t, err)
		var raw []byte
		err = tx.QueryRowContext(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+store.ClaimSQL,
			now, 8, 20, "lease_explain", now.Add(time.Minute), now, "lease_explain", 32, 4, 4).Scan(&raw)
		require.NoError(t, tx.Rollback())
		require.NoError(t, err)
		var plans []struct {
			Plan struct {
				Hits int `json:"Shared Hit Blocks"`
			} `json:"Plan"`
		}
		require.NoError(t, json.Unmarshal(raw, &plans))
		hits = plans[0].Plan.Hits
	}
	return hits
}
