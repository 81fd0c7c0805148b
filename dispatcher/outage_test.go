package dispatcher_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// The database goes away while attempts are in flight (their finishes
// fail) and comes back 3 s later: the finishes are retried rather than
// left to their leases, so delivery resumes within 5 s of the database
// answering again, and no lease is left behind.
func TestDeliveriesResumeQuicklyAfterDatabaseOutage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithDBProxy(), webtest.WithRunningDispatcher())
	var mu sync.Mutex
	arrivals := map[string][]time.Time{}
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(400 * time.Millisecond) // attempts are in flight when the database goes
		mu.Lock()
		arrivals[r.Header.Get("X-Service-Event-Id")] = append(arrivals[r.Header.Get("X-Service-Event-Id")], time.Now())
		mu.Unlock()
	})
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	ctx := context.Background()
	const total = 40
	for i := range total {
		p := samplePayment(s, i)
		require.NoError(t, s.Store.CreatePayment(ctx, &p))
	}
	seen := func() int { mu.Lock(); defer mu.Unlock(); return len(arrivals) }
	require.Eventually(t, func() bool { return seen() >= 4 }, 10*time.Second, 10*time.Millisecond)
	s.DBProxy.Cut()
	time.Sleep(3 * time.Second)
	before := seen()
	s.DBProxy.Restore()
	back := time.Now()
	require.Less(t, before, total, "the outage landed mid-backlog")
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, at := range arrivals {
			if at[len(at)-1].After(back) {
				return true
			}
		}
		return false
	}, 5*time.Second, 10*time.Millisecond, "a delivery within 5 s of the database coming back")
	require.Eventually(t, func() bool { return seen() == total }, 30*time.Second, 20*time.Millisecond, "every event arrives; logs:\n%s", s.Logs)
	var leased, pending int
	require.Eventually(t, func() bool {
		_ = s.DB.NewRaw("SELECT count(*) FILTER (WHERE lease_token IS NOT NULL), count(*) FILTER (WHERE status <> 'succeeded') FROM webhook_deliveries").
			Scan(ctx, &leased, &pending)
		return leased == 0 && pending == 0
	}, 10*time.Second, 20*time.Millisecond, "leased=%d pending=%d", leased, pending)
	var first time.Time
	mu.Lock()
	for _, at := range arrivals {
		if at[len(at)-1].After(back) && (first.IsZero() || at[len(at)-1].Before(first)) {
			first = at[len(at)-1]
		}
	}
	mu.Unlock()
	t.Logf("first delivery %s after the database came back", first.Sub(back).Round(time.Millisecond))
}
