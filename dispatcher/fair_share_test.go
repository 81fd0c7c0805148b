package dispatcher_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/internal/testbin"
	"payments/store"
	"payments/store/ids"
	"payments/web/webtest"
)

// One merchant's slow servers hold back no other merchant's webhooks. Two
// dispatcher processes of 16 workers; account A has five webhooks whose
// receiver answers after 20 s (past the attempt timeout) and a backlog of
// 400 deliveries, enough to lease every worker of both (five webhooks of
// eight in flight each). Account B's webhook, whose receiver answers at
// once, still gets every event within a second: A holds no more than its
// share while B has deliveries due. A's webhooks then move to the slow
// lane, which holds few workers, and back once their receiver answers fast.
func TestOneAccountsSlowReceiversDoNotDelayAnother(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := webtest.New(t)
	var answersFast atomic.Bool
	slow := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && !answersFast.Load(); {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	fast := webtest.NewReceiver(t, nil)
	bAccount, err := s.Store.CreateAccount(ctx, store.NewAccount{Name: "Loja B", Email: "b@example.com", FeeBPS: 100})
	require.NoError(t, err)
	var aHooks []string
	for range 5 {
		w, _, err := s.Store.CreateWebhook(ctx, store.NewWebhook{Scope: store.Scope{AccountID: s.Account.ID}, URL: slow.URL,
			APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true})
		require.NoError(t, err)
		aHooks = append(aHooks, w.ID)
	}
	_, _, err = s.Store.CreateWebhook(ctx, store.NewWebhook{Scope: store.Scope{AccountID: bAccount.ID}, URL: fast.URL,
		APIVersion: "v2", Events: []string{"payment.created"}, Enabled: true})
	require.NoError(t, err)
	pay := func(accountID string, i int) string {
		now := s.Store.Now()
		p := store.Payment{ID: ids.NewPayment(now), AccountID: accountID, Status: store.StatusPending, AmountCents: int64(100 + i),
			Currency: "BRL", PaymentMethod: "pix", Metadata: map[string]string{}, CorrelationID: fmt.Sprintf("FAIR%028d", i),
			BRCode: "x", QRCodeURL: "x", CheckoutURL: "x", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
		require.NoError(t, s.Store.CreatePayment(ctx, &p))
		return p.ID.String()
	}
	for i := range 80 {
		pay(s.Account.ID, i)
	}

	bin := testbin.Path(t, "PAYMENTS_BIN", "./cmd/payments")
	for range 2 {
		cmd := exec.Command(bin, "serve", "--dispatcher")
		cmd.Env = append(os.Environ(), "DATABASE_URL="+s.DBURL, "SECRET_KEY="+hex.EncodeToString(s.SecretKey),
			"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "LOG_LEVEL=warn", "DISPATCHER_WORKERS=16")
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		// Killed, not drained: a drain would wait for A's slow attempts.
		t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	}
	leasedToA := func() (n int) {
		require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM webhook_deliveries WHERE account_id = ? AND lease_token IS NOT NULL`,
			s.Account.ID).Scan(ctx, &n))
		return n
	}
	require.Eventually(t, func() bool { return leasedToA() >= 28 }, 10*time.Second, 20*time.Millisecond,
		"A's slow receivers take every worker A may have (32 less the reserve of 2 per process)")

	created, arrived := map[string]time.Time{}, map[string]time.Time{}
	for i := range 20 {
		id := pay(bAccount.ID, 1000+i)
		created[id] = time.Now()
		time.Sleep(50 * time.Millisecond)
	}
	require.Eventually(t, func() bool { return len(fast.Requests()) == 20 }, 30*time.Second, 10*time.Millisecond, "B gets every event")
	for _, r := range fast.Requests() {
		for id := range created {
			if strings.Contains(string(r.Body), id) {
				arrived[id] = r.At
			}
		}
	}
	var latencies []time.Duration
	for id, at := range created {
		latencies = append(latencies, arrived[id].Sub(at))
	}
	slices.Sort(latencies)
	t.Logf("B's latencies while A's receivers hang: p50 %s, worst %s", latencies[len(latencies)/2], latencies[len(latencies)-1])
	require.Less(t, latencies[len(latencies)-1], time.Second, "B's worst latency")

	// A's timeouts move its webhooks to the slow lane: two workers of
	// each process's 16 between them, not a share of 16.
	inSlowLane := func() (n int) {
		require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM webhooks WHERE id IN (?) AND slow_since IS NOT NULL`,
			bun.List(aHooks)).Scan(ctx, &n))
		return n
	}
	require.Eventually(t, func() bool { return inSlowLane() == 5 }, 30*time.Second, 100*time.Millisecond, "A's webhooks time out into the slow lane")
	require.Eventually(t, func() bool { return leasedToA() <= 4 }, 20*time.Second, 50*time.Millisecond,
		"once A's first attempts end, the slow lane holds 2 workers per process")
	for range 20 {
		require.LessOrEqual(t, leasedToA(), 4)
		time.Sleep(25 * time.Millisecond)
	}
	answersFast.Store(true)
	require.Eventually(t, func() bool { return inSlowLane() == 0 }, 20*time.Second, 100*time.Millisecond,
		"answering fast again brings them back")
}
