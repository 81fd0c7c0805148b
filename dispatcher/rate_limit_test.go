package dispatcher_test

import (
	"context"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
	"payments/web/webtest"
)

// A webhook limited to 5 deliveries a second gets no more than 5 in any
// second at its receiver with two dispatcher processes claiming, while an
// unlimited webhook of the same account gets its backlog at once. The
// limited one's backlog still drains.
func TestRateLimitHoldsAcrossDispatcherProcesses(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var mu sync.Mutex
	arrivals := map[string][]time.Time{}
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals[r.Header.Get("X-Service-Webhook-Id")] = append(arrivals[r.Header.Get("X-Service-Webhook-Id")], time.Now())
		mu.Unlock()
	})
	limited, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}, "rate_limit": 5})
	free, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	const events = 20
	ctx := context.Background()
	for i := range events {
		p := samplePayment(s, i)
		require.NoError(t, s.Store.CreatePayment(ctx, &p))
	}
	bin := testbin.Path(t, "PAYMENTS_BIN", "./cmd/payments")
	for range 2 {
		cmd := exec.Command(bin, "serve", "--dispatcher")
		cmd.Env = append(os.Environ(), "DATABASE_URL="+s.DBURL, "SECRET_KEY="+hex.EncodeToString(s.SecretKey),
			"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "LOG_LEVEL=warn")
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _, _ = cmd.Process.Wait() })
	}
	count := func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		return len(arrivals[id])
	}
	require.Eventually(t, func() bool { return count(free) == events }, 20*time.Second, 10*time.Millisecond, "the unlimited webhook")
	mu.Lock()
	freeSpan := arrivals[free][events-1].Sub(arrivals[free][0])
	mu.Unlock()
	require.Less(t, freeSpan, 2*time.Second, "the unlimited webhook is not slowed")
	require.Eventually(t, func() bool { return count(limited) == events }, 30*time.Second, 10*time.Millisecond, "the limited webhook drains")

	mu.Lock()
	got := append([]time.Time(nil), arrivals[limited]...)
	mu.Unlock()
	sort.Slice(got, func(i, j int) bool { return got[i].Before(got[j]) })
	most := 0
	for i := range got {
		n := 0
		for j := i; j < len(got) && got[j].Sub(got[i]) < time.Second; j++ {
			n++
		}
		most = max(most, n)
	}
	require.LessOrEqual(t, most, 5, "at most 5 in any second")
	require.Greater(t, got[len(got)-1].Sub(got[0]), 3*time.Second, "20 at 5/s take more than 3 s")
	t.Logf("limited: %d deliveries over %s, at most %d in a second; unlimited: %d over %s",
		len(got), got[len(got)-1].Sub(got[0]).Round(time.Millisecond), most, events, freeSpan.Round(time.Millisecond))
}
