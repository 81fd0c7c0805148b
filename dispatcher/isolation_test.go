package dispatcher_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/web/webtest"
)

// TestSlowReceiverDoesNotDelayOthers: a receiver taking 10s per response
// holds at most its per-webhook share of workers, so a healthy receiver gets
// every event at its normal latency.
func TestSlowReceiverDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	// Receivers first: cleanups run in reverse, so the dispatcher stops (and
	// abandons the slow attempts) before the receivers close.
	slow := webtest.NewReceiver(t, func(_ http.ResponseWriter, req *http.Request) {
		select {
		case <-req.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	healthy := webtest.NewReceiver(t, nil)
	s := webtest.New(t, webtest.WithRunningDispatcher(), webtest.WithDispatcher(dispatcher.Config{
		Workers: 8, PerWebhook: 4, DrainTimeout: time.Second,
	}))
	s.CreateWebhook(slow.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreateWebhook(healthy.URL, map[string]any{"events": []string{"payment.created"}})

	const events = 30
	created := make([]time.Time, 0, events)
	for range events {
		created = append(created, time.Now())
		s.CreatePayment(map[string]any{"amount_cents": 100})
		time.Sleep(20 * time.Millisecond)
	}
	got := healthy.WaitFor(events, 10*time.Second)
	require.Len(t, got, events, "the healthy receiver got every event while the slow one was stuck")
	var worst time.Duration
	for i, r := range got {
		worst = max(worst, r.At.Sub(created[i]))
	}
	require.Less(t, worst, 2*time.Second, "worst latency to the healthy receiver")
	require.LessOrEqual(t, len(slow.Requests()), 4, "the slow receiver never had more than its cap in flight")
}
