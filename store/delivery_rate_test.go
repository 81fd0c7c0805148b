package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
)

// A rate-limited webhook's claims are counted by PostgreSQL's clock when
// the claim runs, not by the time its caller read before it waited for a
// connection and for the claim lock: a claim whose caller's clock is stale
// still fills the webhook's second, and a claim right after it finds no
// room. (Stamped with the stale time, the first claim's deliveries fell out
// of the second claim's window: ten requests in one real second at a
// webhook limited to five, seen with two dispatchers under load.)
func TestRateLimitCountsClaimsByTheirOwnTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, _ := deliveryQueues(t, 1, 10)
	wh := webhooks[0]
	_, err := st.DB().NewRaw("UPDATE webhooks SET rate_limit = 5 WHERE id = ?", wh.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = st.DB().NewRaw("UPDATE webhook_deliveries SET next_attempt_at = now() - interval '10 seconds' WHERE webhook_id = ?", wh.ID).Exec(ctx)
	require.NoError(t, err)

	stale := time.Now().Add(-2 * time.Second)
	first, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: stale, Limit: 10, Lease: time.Minute, PerWebhook: 20, Token: "lease_stale"})
	require.NoError(t, err)
	require.Len(t, first, 5, "the limit")
	second, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: time.Now(), Limit: 10, Lease: time.Minute, PerWebhook: 20, Token: "lease_fresh"})
	require.NoError(t, err)
	require.Empty(t, second, "no room left in this second")

	var recent int
	require.NoError(t, st.DB().NewRaw("SELECT count(*) FROM webhooks w, unnest(w.rate_claims) t WHERE w.id = ? AND t > now() - interval '1 second'",
		wh.ID).Scan(ctx, &recent))
	require.Equal(t, 5, recent, "the claims are stamped with the time they were made")
}
