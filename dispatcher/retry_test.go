package dispatcher_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/store"
	"payments/web/webtest"
)

// programmable answers with whatever status and headers the test sets.
type programmable struct {
	status     atomic.Int32
	retryAfter atomic.Value
}

func (p *programmable) handler(w http.ResponseWriter, _ *http.Request) {
	if ra, _ := p.retryAfter.Load().(string); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	w.WriteHeader(int(p.status.Load()))
}

// failingWebhook subscribes a receiver answering 500 (until the test
// changes recv.status) to payment.created.
func failingWebhook(t *testing.T, s *webtest.Server) (*programmable, *webtest.Receiver, string) {
	t.Helper()
	recv := &programmable{}
	recv.status.Store(500)
	r := webtest.NewReceiver(t, recv.handler)
	id, _ := s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
	return recv, r, id
}

func onlyDelivery(t *testing.T, s *webtest.Server) store.Delivery {
	t.Helper()
	var ds []store.Delivery
	require.NoError(t, s.DB.NewSelect().Model(&ds).Scan(context.Background()))
	require.Len(t, ds, 1)
	return ds[0]
}

func webhookRow(t *testing.T, s *webtest.Server, id string) store.Webhook {
	t.Helper()
	var w store.Webhook
	require.NoError(t, s.DB.NewSelect().Model(&w).Where("id = ?", id).Scan(context.Background()))
	return w
}

// TestRetryScheduleUntilFailed walks one delivery through all 12 attempts
// against a receiver that always answers 500, with zero jitter.
func TestRetryScheduleUntilFailed(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now), webtest.WithDispatcher(dispatcher.Config{Jitter: func() float64 { return 0 }}))
	recv := &programmable{}
	recv.status.Store(500)
	r := webtest.NewReceiver(t, recv.handler)
	s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})

	want := []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 5 * time.Minute, 30 * time.Minute,
		2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	for i, delay := range want {
		require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "attempt %d", i+1)
		d := onlyDelivery(t, s)
		require.Equal(t, store.DeliveryPending, d.Status)
		require.Equal(t, i+1, d.Attempts)
		require.Equal(t, clk.Now().Add(delay), d.NextAttemptAt.UTC(), "after attempt %d", i+1)
		require.Equal(t, 500, *d.LastStatusCode)
		require.Zero(t, s.Dispatcher.RunOnce(context.Background(), 10), "nothing is due before the delay")
		clk.Advance(delay - time.Second)
		require.Zero(t, s.Dispatcher.RunOnce(context.Background(), 10))
		clk.Advance(time.Second)
	}
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "attempt 12")
	d := onlyDelivery(t, s)
	require.Equal(t, store.DeliveryFailed, d.Status)
	require.Equal(t, 12, d.Attempts)
	require.NotNil(t, d.CompletedAt)
	require.Len(t, r.Requests(), 12)
	ids := map[string]bool{}
	for _, req := range r.Requests() {
		ids[req.Header.Get("X-Service-Delivery")] = true
		require.Equal(t, r.Requests()[0].Header.Get("X-Service-Event-Id"), req.Header.Get("X-Service-Event-Id"), "stable event id")
	}
	require.Len(t, ids, 12, "a new X-Service-Delivery per attempt")
	var attempts int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM delivery_attempts").Scan(context.Background(), &attempts))
	require.Equal(t, 12, attempts, "every attempt is recorded")
}

func TestRetryJitterAndRetryAfter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		status     int32
		retryAfter string
		jitter     float64
		wantDelay  time.Duration
	}{
		{"jitter adds up to 20%", 500, "", 0.5, 5*time.Second + 500*time.Millisecond},
		{"max jitter", 502, "", 0.999999, 5*time.Second + 999999*time.Microsecond},
		{"429 Retry-After longer than the schedule wins", 429, "600", 0, 600 * time.Second},
		{"503 Retry-After shorter than the schedule is not earlier", 503, "2", 0, 5 * time.Second},
		{"Retry-After is clamped to a day", 429, "999999", 0, 24 * time.Hour},
		{"Retry-After on a 500 is ignored", 500, "600", 0, 5 * time.Second},
		{"Retry-After as an HTTP date", 503, "DATE+120", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			jitter := c.jitter
			s := webtest.New(t, webtest.WithClock(clk.Now), webtest.WithDispatcher(dispatcher.Config{Jitter: func() float64 { return jitter }}))
			recv := &programmable{}
			recv.status.Store(c.status)
			ra := c.retryAfter
			if ra == "DATE+120" {
				ra = time.Now().Add(121 * time.Second).UTC().Format(http.TimeFormat)
			}
			recv.retryAfter.Store(ra)
			r := webtest.NewReceiver(t, recv.handler)
			s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
			s.CreatePayment(map[string]any{"amount_cents": 100})
			require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
			d := onlyDelivery(t, s)
			require.Equal(t, store.DeliveryPending, d.Status)
			got := d.NextAttemptAt.Sub(clk.Now())
			if c.wantDelay == 0 { // the HTTP date: about two minutes, measured against the real clock
				require.InDelta(t, 120, got.Seconds(), 3)
				return
			}
			require.InDelta(t, c.wantDelay.Seconds(), got.Seconds(), 0.001)
		})
	}
}

func TestGoneDisablesTheWebhook(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	recv := &programmable{}
	recv.status.Store(410)
	r := webtest.NewReceiver(t, recv.handler)
	id, _ := s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	d := onlyDelivery(t, s)
	require.Equal(t, store.DeliveryFailed, d.Status)
	w := webhookRow(t, s, id)
	require.False(t, w.Enabled)
	require.Equal(t, store.DisabledEndpointGone, *w.DisabledReason)

	s.CreatePayment(map[string]any{"amount_cents": 100})
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM webhook_deliveries").Scan(context.Background(), &n))
	require.Equal(t, 1, n, "a disabled webhook gets no new deliveries")

	// Enabling it again clears the reason.
	resp := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id, Key: s.TestKey, Body: map[string]any{"enabled": true}})
	require.Equal(t, http.StatusOK, resp.Status)
	require.Nil(t, resp.JSON(t)["disabled_reason"])
}

func TestAutoDisableAfterFiveDaysOfFailures(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now))
	_, _, id := failingWebhook(t, s)

	// One failure a day for six days: the streak is old enough from day 5,
	// but it takes ten failures.
	fail := func() {
		t.Helper()
		s.CreatePayment(map[string]any{"amount_cents": 100})
		require.GreaterOrEqual(t, s.Dispatcher.RunOnce(context.Background(), 1), 1)
	}
	for range 6 {
		fail()
		clk.Advance(24 * time.Hour)
	}
	w := webhookRow(t, s, id)
	require.True(t, w.Enabled, "six failures over six days: not yet")
	require.Equal(t, 6, w.FailuresSince)
	for range 3 {
		fail()
	}
	require.True(t, webhookRow(t, s, id).Enabled, "nine failures")
	fail()
	w = webhookRow(t, s, id)
	require.False(t, w.Enabled, "the tenth failure, more than five days into the streak")
	require.Equal(t, store.DisabledFailing, *w.DisabledReason)

	// A success in between resets the streak.
	s2 := webtest.New(t, webtest.WithClock(clk.Now))
	ok := &programmable{}
	ok.status.Store(500)
	r2 := webtest.NewReceiver(t, ok.handler)
	id2, _ := s2.CreateWebhook(r2.URL, map[string]any{"events": []string{"payment.created"}})
	for range 9 {
		s2.CreatePayment(map[string]any{"amount_cents": 100})
		s2.Dispatcher.RunOnce(context.Background(), 1)
		clk.Advance(24 * time.Hour)
	}
	ok.status.Store(200)
	s2.CreatePayment(map[string]any{"amount_cents": 100})
	s2.Dispatcher.RunOnce(context.Background(), 100)
	w2 := webhookRow(t, s2, id2)
	require.True(t, w2.Enabled)
	require.Nil(t, w2.FailingSince)
	require.Zero(t, w2.FailuresSince)
}

func attemptOf(t *testing.T, s *webtest.Server) store.DeliveryAttempt {
	t.Helper()
	var a store.DeliveryAttempt
	require.NoError(t, s.DB.NewSelect().Model(&a).Order("created_at DESC").Limit(1).Scan(context.Background()))
	return a
}

func TestHostileReceivers(t *testing.T) {
	t.Parallel()
	t.Run("redirect is not followed", func(t *testing.T) {
		t.Parallel()
		s := webtest.New(t)
		target := webtest.NewReceiver(t, nil)
		r := webtest.NewReceiver(t, func(w http.ResponseWriter, req *http.Request) {
			http.Redirect(w, req, target.URL, http.StatusFound)
		})
		s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
		s.CreatePayment(map[string]any{"amount_cents": 100})
		s.Dispatcher.RunOnce(context.Background(), 10)
		a := attemptOf(t, s)
		require.Equal(t, dispatcher.ErrClassRedirect, *a.ErrorClass)
		require.Equal(t, 302, *a.ResponseStatus)
		require.Empty(t, target.Requests())
		require.Equal(t, store.DeliveryPending, onlyDelivery(t, s).Status, "a redirect is a failure to retry")
	})
	t.Run("connection reset", func(t *testing.T) {
		t.Parallel()
		s := webtest.New(t)
		r := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			_ = conn.(*net.TCPConn).SetLinger(0) // close with RST
			_ = conn.Close()
		})
		s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
		s.CreatePayment(map[string]any{"amount_cents": 100})
		s.Dispatcher.RunOnce(context.Background(), 10)
		a := attemptOf(t, s)
		require.Equal(t, dispatcher.ErrClassConnReset, *a.ErrorClass, *a.ErrorMessage)
		require.Nil(t, a.ResponseStatus)
		require.Equal(t, store.DeliveryPending, onlyDelivery(t, s).Status)
	})
	t.Run("10 MB response is cut at 16 KiB", func(t *testing.T) {
		t.Parallel()
		s := webtest.New(t)
		r := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
			chunk := []byte(strings.Repeat("x", 64<<10))
			for range 160 { // 10 MiB
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		})
		s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
		s.CreatePayment(map[string]any{"amount_cents": 100})
		start := time.Now()
		s.Dispatcher.RunOnce(context.Background(), 10)
		require.Less(t, time.Since(start), 5*time.Second)
		a := attemptOf(t, s)
		require.Nil(t, a.ErrorClass)
		require.Len(t, a.ResponseBody, dispatcher.MaxResponseBody)
		require.Equal(t, store.DeliverySucceeded, onlyDelivery(t, s).Status)
	})
	t.Run("a receiver that hangs times out after 15s", func(t *testing.T) {
		t.Parallel()
		s := webtest.New(t)
		r := webtest.NewReceiver(t, func(_ http.ResponseWriter, req *http.Request) {
			select {
			case <-req.Context().Done():
			case <-time.After(time.Minute):
			}
		})
		s.CreateWebhook(r.URL, map[string]any{"events": []string{"payment.created"}})
		s.CreatePayment(map[string]any{"amount_cents": 100})
		start := time.Now()
		s.Dispatcher.RunOnce(context.Background(), 10)
		took := time.Since(start)
		require.InDelta(t, dispatcher.AttemptTimeout.Seconds(), took.Seconds(), 2)
		a := attemptOf(t, s)
		require.Equal(t, dispatcher.ErrClassTimeout, *a.ErrorClass, *a.ErrorMessage)
		require.Equal(t, store.DeliveryPending, onlyDelivery(t, s).Status)
	})
	t.Run("nothing listening", func(t *testing.T) {
		t.Parallel()
		s := webtest.New(t)
		s.CreateWebhook("http://127.0.0.1:1/hook", map[string]any{"events": []string{"payment.created"}})
		s.CreatePayment(map[string]any{"amount_cents": 100})
		s.Dispatcher.RunOnce(context.Background(), 10)
		require.Equal(t, dispatcher.ErrClassConnRefused, *attemptOf(t, s).ErrorClass)
	})
}

func TestManualResends(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now))
	recv, _, id := failingWebhook(t, s)
	s.CreatePayment(map[string]any{"amount_cents": 100})
	_, err := s.DB.NewRaw("UPDATE webhook_deliveries SET status = 'failed', attempts = 12").Exec(context.Background())
	require.NoError(t, err)
	d := onlyDelivery(t, s)

	recv.status.Store(200)
	resp := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/deliveries/" + d.ID + "/resend", Key: s.TestKey})
	require.Equal(t, http.StatusOK, resp.Status)
	require.Equal(t, "pending", resp.JSON(t)["status"])
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	require.Equal(t, store.DeliverySucceeded, onlyDelivery(t, s).Status)

	// resend_failed requeues only failed deliveries created since the time given.
	_, err = s.DB.NewRaw("UPDATE webhook_deliveries SET status = 'failed'").Exec(context.Background())
	require.NoError(t, err)
	since := clk.Now().Add(time.Second).Unix()
	resp = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/resend_failed", Key: s.TestKey, Body: map[string]any{"since": since}})
	require.Equal(t, float64(0), resp.JSON(t)["requeued"])
	resp = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/resend_failed", Key: s.TestKey, Body: map[string]any{"since": since - 10}})
	require.Equal(t, float64(1), resp.JSON(t)["requeued"])
	require.Equal(t, store.DeliveryPending, onlyDelivery(t, s).Status)
}
