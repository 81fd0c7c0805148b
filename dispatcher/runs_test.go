package dispatcher_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/store"
	"payments/web/webtest"
)

// A worker holds a run of its webhook's next deliveries while it sends one,
// all under its slot: the webhook's one request in flight (PerWebhook 1) is
// the worker's, and the run is leased to it, not to others. When an attempt
// fails, the worker gives back what it holds at once: due again, the
// attempt uncounted, and delivered by the next claim (without it, they
// would wait for their leases to run out, a minute).
func TestAWorkerHoldsARunAndGivesItBackWhenItsWebhookFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var n atomic.Int32
	blocked, release := make(chan struct{}), make(chan struct{})
	var released sync.Once
	let := func() { released.Do(func() { close(release) }) }
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 3 {
			close(blocked)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	t.Cleanup(let) // before the receiver closes, however the test ends
	const events = 20
	s, hookID := oneWorkersQueue(t, recv.URL, events)

	select {
	case <-blocked:
	case <-time.After(10 * time.Second):
		t.Fatalf("the third request never came: %d", n.Load())
	}
	// The first success asked for a run of 8: the third is in flight, the
	// other 6 held, all under the claimed token's slot (once the second's
	// success, recorded while the worker goes on, has landed).
	var leased []store.Delivery
	require.Eventually(t, func() bool {
		leased = nil
		require.NoError(t, s.Store.DB().NewSelect().Model(&leased).Where("webhook_id = ? AND lease_token IS NOT NULL", hookID).
			Order("next_attempt_at", "id").Scan(ctx))
		return len(leased) == 7
	}, 5*time.Second, 10*time.Millisecond)
	slot, _, _ := strings.Cut(*leased[0].LeaseToken, "/")
	for _, d := range leased {
		held, _, _ := strings.Cut(*d.LeaseToken, "/")
		require.Equal(t, slot, held, "one worker's slot")
		require.Equal(t, 1, d.Attempts)
	}
	held := leased[1:]

	let()
	require.Eventually(t, func() bool {
		var ds []store.Delivery
		require.NoError(t, s.Store.DB().NewSelect().Model(&ds).Where("webhook_id = ?", hookID).Scan(ctx))
		done := 0
		for _, d := range ds {
			if d.Status == store.DeliverySucceeded {
				done++
			}
		}
		return done == events-1
	}, 10*time.Second, 20*time.Millisecond, "every delivery but the failed one, well before a lease runs out")
	for _, d := range held {
		var now store.Delivery
		require.NoError(t, s.Store.DB().NewSelect().Model(&now).Where("id = ?", d.ID).Scan(ctx))
		require.Equal(t, 1, now.Attempts, "given back uncounted, then attempted once")
	}
	require.Len(t, recv.Requests(), events, "19 successes and the failure")
}

// A worker's run of one webhook's queue lasts no longer than chainFor (a
// second): a webhook answering in 150 ms, fast enough to keep its run,
// hands its worker back to the pool after about seven deliveries, not 64
// (13 s at 200 ms), and the next claim takes its queue on under another
// slot.
func TestARunEndsAfterASecond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(150 * time.Millisecond)
	})
	const events = 12
	s, hookID := oneWorkersQueue(t, recv.URL, events)

	slots := map[string]bool{} // the slots that held the webhook's leases
	require.Eventually(t, func() bool {
		var tokens []string
		require.NoError(t, s.Store.DB().NewRaw("SELECT DISTINCT split_part(lease_token, '/', 1) FROM webhook_deliveries "+
			"WHERE webhook_id = ? AND lease_token IS NOT NULL", hookID).Scan(ctx, &tokens))
		for _, token := range tokens {
			slots[token] = true
		}
		return len(recv.Requests()) == events
	}, 10*time.Second, 10*time.Millisecond)
	require.GreaterOrEqual(t, len(slots), 2, "one run for all %d deliveries (%.1f s): %v", events, 0.15*events, slots)
}

// oneWorkersQueue starts a service whose dispatcher has one worker (one
// request in flight a webhook, runs of 8) and a webhook to url with events
// deliveries queued whole: the webhook is paused while they are made, so
// the first claim finds them all.
func oneWorkersQueue(t *testing.T, url string, events int) (*webtest.Server, string) {
	t.Helper()
	ctx := context.Background()
	s := webtest.New(t, webtest.WithRunningDispatcher(), webtest.WithDispatcher(dispatcher.Config{
		Workers: 1, PerWebhook: 1, Run: 8, PollInterval: 50 * time.Millisecond,
	}))
	hookID, _ := s.CreateWebhook(url, map[string]any{"events": []string{"payment.created"}})
	_, err := s.Store.DB().NewRaw("UPDATE webhooks SET paused_until = now() + interval '1 hour' WHERE id = ?", hookID).Exec(ctx)
	require.NoError(t, err)
	for i := range events {
		p := samplePayment(s, i)
		require.NoError(t, s.Store.CreatePayment(ctx, &p))
	}
	_, err = s.Store.DB().NewRaw("UPDATE webhooks SET paused_until = NULL WHERE id = ?", hookID).Exec(ctx)
	require.NoError(t, err)
	return s, hookID
}
