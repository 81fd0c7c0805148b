package dispatcher_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/web/webtest"
)

// A receiver answering 503 with Retry-After: 30 gets no attempt, of that
// delivery or any other of the webhook, sooner than 30 s later (real time,
// the dispatcher running as in `payments serve`); then everything arrives.
func TestRetryAfterPausesTheWebhookInRealTime(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var arrivals []time.Time
	first := true
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		arrivals = append(arrivals, time.Now())
		if first {
			first = false
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	s := webtest.New(t, webtest.WithRunningDispatcher())
	id, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	recv.WaitFor(1, 10*time.Second)
	// Once the answer is recorded (attempts already in flight cannot be
	// called back), deliveries made during the pause wait for its end too.
	require.Eventually(t, func() bool {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)["paused_until"] != nil
	}, 10*time.Second, 10*time.Millisecond)
	for range 3 {
		s.CreatePayment(map[string]any{"amount_cents": 200})
	}
	got := recv.WaitFor(5, 45*time.Second)
	require.Len(t, got, 5)
	mu.Lock()
	defer mu.Unlock()
	for i, at := range arrivals[1:] {
		require.GreaterOrEqual(t, at.Sub(arrivals[0]), 30*time.Second, "request %d came %s after the 503", i+2, at.Sub(arrivals[0]))
	}
	hook := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)
	require.Nil(t, hook["paused_until"], "the pause is over")
}

// The pause by the injected clock: the answered delivery and the others
// wait until Retry-After ends, shown on the API and in the console; a 503
// without Retry-After pauses nothing.
func TestRetryAfterPauseIsShown(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now), webtest.WithDispatcher(dispatcher.Config{Jitter: func() float64 { return 0 }}))
	recv := &programmable{}
	recv.status.Store(429)
	recv.retryAfter.Store("120")
	r := webtest.NewReceiver(t, recv.handler)
	id, _ := s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	d := onlyDelivery(t, s)
	require.Equal(t, clk.Now().Add(120*time.Second), d.NextAttemptAt.UTC())
	require.Equal(t, "http_status: 429 Too Many Requests (Retry-After: 2m0s)", *d.LastError)
	hook := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)
	require.Equal(t, clk.Now().Add(120*time.Second).Format("2006-01-02T15:04:05.000Z"), hook["paused_until"])

	recv.status.Store(200)
	recv.retryAfter.Store("")
	s.CreatePayment(map[string]any{"amount_cents": 200}) // due now, but the webhook is paused
	clk.Advance(119 * time.Second)
	require.Zero(t, s.Dispatcher.RunOnce(context.Background(), 10), "nothing leaves during the pause")
	clk.Advance(time.Second)
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 10), "both go when it ends")
	require.Len(t, r.Requests(), 3)

	// A 503 without Retry-After is an ordinary failure: no pause.
	recv.status.Store(503)
	s.CreatePayment(map[string]any{"amount_cents": 300})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	require.False(t, webhookRow(t, s, id).PausedUntil.After(clk.Now()), "the past pause is not extended")
	hook = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)
	require.Nil(t, hook["paused_until"])
}
