package dispatcher_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/ids"
	"payments/web/webtest"
)

// TestDispatcherSurvivesSIGKILL runs the real binary as a dispatcher, kills
// it with SIGKILL in the middle of a 2,000-event burst, starts it again and
// checks that every event reached the receiver and no delivery is stuck.
func TestDispatcherSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "payments")
	build := exec.Command("go", "build", "-o", bin, "payments/cmd/payments")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	s := webtest.New(t)
	var mu sync.Mutex
	seen := map[string]int{}
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		time.Sleep(5 * time.Millisecond) // a receiver doing a little work keeps attempts in flight
		mu.Lock()
		seen[req.Header.Get("X-Service-Event-Id")]++
		mu.Unlock()
	})
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})

	const burst = 2000
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "serve", "--dispatcher")
		cmd.Env = append(os.Environ(),
			"DATABASE_URL="+s.DBURL,
			"SECRET_KEY="+hex.EncodeToString(s.SecretKey),
			"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true",
			"DISPATCHER_LEASE=20s",
			"LOG_LEVEL=warn",
		)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		return cmd
	}
	// The burst is queued first, so the dispatcher starts with all 2,000 in front of it.
	ctx := context.Background()
	for i := range burst {
		p := samplePayment(s, i)
		require.NoError(t, s.Store.CreatePayment(ctx, &p))
	}
	first := start()
	t.Cleanup(func() { _ = first.Process.Kill(); _, _ = first.Process.Wait() })

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) >= 300
	}, 60*time.Second, 5*time.Millisecond, "deliveries started")
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_, _ = first.Process.Wait()
	mu.Lock()
	atKill := len(seen)
	mu.Unlock()
	require.Less(t, atKill, burst, "the kill landed mid-burst")

	second := start()
	t.Cleanup(func() { _ = second.Process.Signal(syscall.SIGTERM); _, _ = second.Process.Wait() })
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == burst
	}, 90*time.Second, 50*time.Millisecond, "every event arrives after the restart")

	// Every delivery row ended succeeded; none is pending or leased.
	var pending, leased int
	require.Eventually(t, func() bool {
		_ = s.DB.NewRaw("SELECT count(*) FILTER (WHERE status <> 'succeeded'), count(*) FILTER (WHERE lease_token IS NOT NULL) FROM webhook_deliveries").
			Scan(ctx, &pending, &leased)
		return pending == 0 && leased == 0
	}, 30*time.Second, 50*time.Millisecond, "pending=%d leased=%d", pending, leased)
	var rows int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM webhook_deliveries").Scan(ctx, &rows))
	require.Equal(t, burst, rows)
	t.Logf("delivered before the kill: %d; duplicates after restart (at-least-once): %d", atKill, duplicates(seen))
}

func duplicates(seen map[string]int) int {
	n := 0
	for _, c := range seen {
		n += c - 1
	}
	return n
}

func samplePayment(s *webtest.Server, i int) store.Payment {
	now := s.Store.Now()
	return store.Payment{
		ID: ids.NewPayment(now), AccountID: s.Account.ID, Status: store.StatusPending, AmountCents: int64(100 + i),
		Currency: "BRL", PaymentMethod: "pix", Metadata: map[string]string{}, CorrelationID: fmt.Sprintf("CRASH%027d", i),
		BRCode: "x", QRCodeURL: "x", CheckoutURL: "x", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
	}
}
