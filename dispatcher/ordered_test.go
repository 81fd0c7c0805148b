package dispatcher_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/store"
	"payments/web/webtest"
)

// pay pays payment id through the test helper.
func pay(t *testing.T, s *webtest.Server, id string) {
	t.Helper()
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// envelopeOf reads what the ordering tests need of a delivered v2 body.
func envelopeOf(t *testing.T, body []byte) (eventType, objectID string) {
	t.Helper()
	var e struct {
		Type string `json:"type"`
		Data struct {
			Object struct {
				ID string `json:"id"`
			} `json:"object"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &e))
	return e.Type, e.Data.Object.ID
}

// An ordered webhook whose receiver fails a payment's first event three
// times gets that payment's later event only after the first succeeds; the
// other payment's events flow meanwhile. An unordered webhook beside it is
// not held.
func TestOrderedWebhookHoldsAnObjectsLaterEventsBehindARetry(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now), webtest.WithDispatcher(dispatcher.Config{Jitter: func() float64 { return 0 }}))
	var failures atomic.Int32
	var held string // the payment whose payment.created fails three times
	var mu sync.Mutex
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("X-Service-Event") == "payment.created" && held == "" {
			held = r.Header.Get("X-Service-Event-Id")
		}
		if r.Header.Get("X-Service-Event-Id") == held && failures.Load() < 3 {
			failures.Add(1)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
		"url": recv.URL, "events": []string{"payment.created", "payment.paid"}, "ordered": true}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, true, r.JSON(t)["ordered"])
	plain := webtest.NewReceiver(t, nil)
	s.CreateWebhook(plain.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})

	a := s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 10), "a's payment.created to both")
	require.Equal(t, int32(1), failures.Load())
	pay(t, s, a["id"].(string))
	b := s.CreatePayment(map[string]any{"amount_cents": 200})
	pay(t, s, b["id"].(string))
	// Due now: a.paid (held behind a.created's retry), b.created and b.paid
	// (in turn) to the ordered webhook; a.paid, b.created, b.paid to the other.
	for range 3 {
		s.Dispatcher.RunOnce(context.Background(), 10)
	}
	seen := func() []string {
		var out []string
		for _, got := range recv.Requests() {
			eventType, objectID := envelopeOf(t, got.Body)
			out = append(out, objectID[:8]+" "+eventType)
		}
		return out
	}
	ida, idb := a["id"].(string)[:8], b["id"].(string)[:8]
	require.Equal(t, []string{ida + " payment.created", idb + " payment.created", idb + " payment.paid"}, seen(),
		"a's paid waits; b flows")
	require.Len(t, plain.Requests(), 4, "the unordered webhook is not held")

	for _, wait := range []time.Duration{5 * time.Second, 30 * time.Second} {
		clk.Advance(wait)
		require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "only the retry; a's paid still waits")
	}
	require.Equal(t, int32(3), failures.Load())
	clk.Advance(2 * time.Minute)
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "the retry succeeds")
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "then a's paid goes")
	require.Equal(t, []string{ida + " payment.created", idb + " payment.created", idb + " payment.paid",
		ida + " payment.created", ida + " payment.created", ida + " payment.created", ida + " payment.paid"}, seen())
}

// A delivery given up releases the ones behind it; the gap is the failed
// delivery, in the API and the console.
func TestOrderedWebhookGivenUpReleasesTheNext(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now), webtest.WithDispatcher(dispatcher.Config{Jitter: func() float64 { return 0 }}))
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Service-Event") == "payment.created" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}, "ordered": true})
	p := s.CreatePayment(map[string]any{"amount_cents": 100})
	pay(t, s, p["id"].(string))
	// The schedule's waits (3.2 days in all, short of the five days of
	// failures that disable a webhook).
	waits := []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 5 * time.Minute, 30 * time.Minute,
		2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour, 0}
	for attempt, wait := range waits {
		require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "attempt %d: only payment.created", attempt+1)
		clk.Advance(wait)
	}
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "given up: payment.paid goes")
	got := recv.Requests()
	require.Len(t, got, dispatcher.MaxAttempts+1)
	require.Equal(t, "payment.paid", got[len(got)-1].Header.Get("X-Service-Event"))
	var ds []store.Delivery
	require.NoError(t, s.DB.NewSelect().Model(&ds).Order("created_at", "id").Scan(context.Background()))
	require.Equal(t, store.DeliveryFailed, ds[0].Status, "the gap: the given-up delivery")
	require.Equal(t, store.DeliverySucceeded, ds[1].Status)
	require.Nil(t, ds[0].OrderKey, "an ended delivery holds nothing back")

	// Resent, it is pending again under its key, and goes.
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + ds[0].WebhookID + "/deliveries/" + ds[0].ID + "/resend", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var key *string
	require.NoError(t, s.DB.NewRaw("SELECT order_key FROM webhook_deliveries WHERE id = ?", ds[0].ID).Scan(context.Background(), &key))
	require.Equal(t, store.OrderKey(ds[0].WebhookID, p["id"].(string)), *key)
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
}

// 1,000 payments with 5 events each reach an ordered webhook in order per
// payment, with 8 deliveries in flight across payments (never two of one
// payment at once), the dispatcher running as in `payments serve`.
func TestOrderedWebhookKeepsEveryObjectsOrderUnderLoad(t *testing.T) {
	t.Parallel()
	const objects, perObject = 1000, 5
	var mu sync.Mutex
	inFlight, peak := 0, 0
	busy := map[string]bool{}
	var overlap []string
	order := map[string][]int{}
	var received atomic.Int32
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Data struct {
				Object struct {
					ID  string `json:"id"`
					Seq int    `json:"seq"`
				} `json:"object"`
			} `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		id := body.Data.Object.ID
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		if busy[id] {
			overlap = append(overlap, id)
		}
		busy[id] = true
		order[id] = append(order[id], body.Data.Object.Seq)
		mu.Unlock()
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
		mu.Lock()
		inFlight--
		busy[id] = false
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
		if received.Add(1) == objects*perObject {
			close(done)
		}
	}))
	t.Cleanup(srv.Close)
	s := webtest.New(t, webtest.WithRunningDispatcher(), webtest.WithDispatcher(dispatcher.Config{PerWebhook: 8}))
	s.CreateWebhook(srv.URL, map[string]any{"events": []string{"payment.created"}, "ordered": true})
	at := time.Now()
	events := make([]store.NewEvent, 0, objects*perObject)
	// Each object's events side by side in the queue: without the order's
	// rule, 8 in flight would hold several of one object at once.
	for o := range objects {
		for seq := range perObject {
			at = at.Add(time.Microsecond)
			data := fmt.Sprintf(`{"id":"obj_%04d","seq":%d}`, o, seq)
			events = append(events, store.NewEvent{Scope: store.Scope{AccountID: s.Account.ID}, Type: "payment.created",
				ObjectID: fmt.Sprintf("obj_%04d", o), Data: json.RawMessage(data), At: at})
		}
	}
	require.NoError(t, s.Store.RecordEvents(context.Background(), events))
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		t.Fatalf("%d of %d deliveries arrived", received.Load(), objects*perObject)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, overlap, "two deliveries of one object in flight at once")
	require.LessOrEqual(t, peak, 8)
	require.Greater(t, peak, 1, "objects flow side by side")
	for id, seqs := range order {
		require.Equal(t, []int{0, 1, 2, 3, 4}, seqs, "object %s", id)
	}
}
