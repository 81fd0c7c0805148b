package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// While the database is out of reach, every API answer is a 503
// service_unavailable with Retry-After (never a 500), readiness fails, and
// nothing is half-written: once it is back, the same requests succeed and
// only what answered 2xx exists.
func TestDatabaseOutageAnswers503(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithDBProxy())
	p := s.CreatePayment(map[string]any{"amount_cents": 1000, "external_id": "antes"})
	id := p["id"].(string)

	s.DBProxy.Cut()
	requests := []webtest.Request{
		{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{"amount_cents": 500, "external_id": "durante"},
			Headers: map[string]string{"Idempotency-Key": "outage-1"}},
		{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey},
		{Method: "GET", Path: "/api/v1/payments", Key: s.TestKey},
		{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey},
		{Method: "GET", Path: "/api/v1/events", Key: s.TestKey},
		{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey},
	}
	for round := range 5 {
		for _, req := range requests {
			r := s.Do(req)
			require.Equal(t, http.StatusServiceUnavailable, r.Status, "round %d %s %s: %s", round, req.Method, req.Path, r.Body)
			require.Equal(t, "service_unavailable", r.ErrorCode(t))
			require.Equal(t, "2", r.Header.Get("Retry-After"))
		}
	}
	ready := s.DoRaw(webtest.Request{Method: "GET", Path: "/readyz"})
	require.Equal(t, http.StatusServiceUnavailable, ready.Status)

	s.DBProxy.Restore()
	require.Eventually(t, func() bool {
		return s.DoRaw(webtest.Request{Method: "GET", Path: "/readyz"}).Status == http.StatusOK
	}, 10*time.Second, 50*time.Millisecond)
	r := s.Do(requests[0])
	require.Equal(t, http.StatusCreated, r.Status, "the retry with the same key runs: nothing was kept of the failed one")
	require.NotEqual(t, "true", r.Header.Get("Idempotent-Replayed"))
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments").Scan(context.Background(), &n))
	require.Equal(t, 2, n)
	require.Equal(t, http.StatusOK, s.Do(requests[3]).Status)
	require.Equal(t, "paid", s.Do(requests[1]).JSON(t)["status"])
	var events int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM events").Scan(context.Background(), &events))
	require.Equal(t, 3, events, "two payment.created and one payment.paid")
}
