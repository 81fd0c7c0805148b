package webtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Received is one request a Receiver got.
type Received struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// Receiver is a real HTTP server standing in for a merchant's webhook endpoint.
type Receiver struct {
	URL string
	mu  sync.Mutex
	got []Received
	// notify gets a value per request, for tests that wait.
	notify chan struct{}
}

// NewReceiver serves respond (nil answers 200 "ok") and records every request.
func NewReceiver(t testing.TB, respond http.HandlerFunc) *Receiver {
	t.Helper()
	r := &Receiver{notify: make(chan struct{}, 100_000)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, Received{Header: req.Header.Clone(), Body: body, At: time.Now()})
		r.mu.Unlock()
		select {
		case r.notify <- struct{}{}:
		default:
		}
		if respond != nil {
			respond(w, req)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Requests returns a copy of what was received so far.
func (r *Receiver) Requests() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.got...)
}

// WaitFor waits until n requests arrived or timeout passed, and returns them.
func (r *Receiver) WaitFor(n int, timeout time.Duration) []Received {
	deadline := time.After(timeout)
	for {
		if got := r.Requests(); len(got) >= n {
			return got
		}
		select {
		case <-r.notify:
		case <-deadline:
			return r.Requests()
		}
	}
}

// CreateWebhook registers a v2 webhook for events with the test key and
// returns its id and secret.
func (s *Server) CreateWebhook(url string, body map[string]any) (id, secret string) {
	s.t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	body["url"] = url
	if _, ok := body["events"]; !ok {
		body["events"] = []string{"payment.paid"}
	}
	r := s.Do(Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: body})
	if r.Status != http.StatusCreated {
		s.t.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	m := r.JSON(s.t)
	secret, _ = m["secret"].(string) // none for an ed25519 webhook
	return m["id"].(string), secret
}
