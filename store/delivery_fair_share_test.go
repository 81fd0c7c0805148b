package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
)

// The claim shares a dispatcher's workers among accounts: alone, an account
// leaves the reserve free; with another account's deliveries due, it holds
// no more than its share (its leases count, not the other processes'),
// and its slow webhooks hold no more than the slow lane. The same past
// fewWebhooks, where a claim reads only the idle webhooks it could take
// from.
func TestClaimSharesWorkersAmongAccounts(t *testing.T) {
	t.Parallel()
	t.Run("few webhooks", func(t *testing.T) { t.Parallel(); claimSharesWorkersAmongAccounts(t, false) })
	t.Run("many webhooks", func(t *testing.T) { t.Parallel(); claimSharesWorkersAmongAccounts(t, true) })
}

func claimSharesWorkersAmongAccounts(t *testing.T, many bool) {
	ctx := context.Background()
	a := newMoneyFixture(t)
	st := a.st
	other, err := st.CreateAccount(ctx, store.NewAccount{Name: "Outra", Email: "outra@example.com", FeeBPS: 100})
	require.NoError(t, err)
	b := &moneyFixture{t: t, db: a.db, st: st, scope: store.Scope{AccountID: other.ID}, acct: other}
	hook := func(f *moneyFixture) *store.Webhook {
		w, _, err := st.CreateWebhook(ctx, store.NewWebhook{Scope: f.scope, URL: "https://example.com/hooks",
			APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true})
		require.NoError(t, err)
		return w
	}
	hook(a)
	aSlow := hook(a)
	hook(b)
	if many {
		pastFewWebhooks(t, st, b.scope)
	}
	for range 10 {
		a.createPayment(1_000)
	}
	now := time.Now().Add(time.Minute)
	claim := func(owner string, limit int) map[string]int {
		claimed, err := st.ClaimDeliveries(ctx, store.ClaimParams{Now: now, Limit: limit, Lease: time.Hour, PerWebhook: 8,
			Token: owner + "lease_x", Owner: owner, Workers: 8, Reserve: 1, SlowLane: 2})
		require.NoError(t, err)
		got := map[string]int{}
		for _, d := range claimed {
			got[d.AccountID]++
		}
		return got
	}

	require.Equal(t, map[string]int{a.scope.AccountID: 7}, claim("one:", 8), "alone, it leaves one worker of eight free")
	require.Equal(t, map[string]int{a.scope.AccountID: 7}, claim("two:", 8), "another process's leases are its own share")

	for range 3 {
		b.createPayment(1_000)
	}
	require.Equal(t, map[string]int{b.scope.AccountID: 3}, claim("one:", 8),
		"with another account due, the first holds its 7 of 8 (more than its share of 4) and gets none; the other gets its 3")
	for range 5 {
		b.createPayment(1_000)
	}
	require.Equal(t, map[string]int{b.scope.AccountID: 1}, claim("one:", 1), "the free worker goes to the account under its share")

	// A third process: its share of eight is four each, in turns, and
	// the slow lane's webhooks together hold two.
	require.NoError(t, st.SetWebhookSlow(ctx, aSlow.ID, true))
	got := claim("three:", 8)
	if many {
		// Past fewWebhooks a claim reads no more of each webhook than its
		// part of the claim (8 over 3 busy webhooks: 3 of b's one); the
		// next claim takes the rest.
		taken := 0
		for _, n := range got {
			taken += n
		}
		for acct, n := range claim("three:", 8-taken) {
			got[acct] += n
		}
	}
	require.Equal(t, 4, got[b.scope.AccountID], "%v", got)
	require.LessOrEqual(t, got[a.scope.AccountID], 4, "%v", got)
	var slowLeases int
	require.NoError(t, a.db.NewRaw(`SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND lease_token LIKE 'three:%'`,
		aSlow.ID).Scan(ctx, &slowLeases))
	require.LessOrEqual(t, slowLeases, 2, "the slow lane holds two of the eight")
}
