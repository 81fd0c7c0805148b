package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// A delivery that keeps failing is found by one filter, failing, whether it
// is still retrying (pending) or given up (failed), and "resend failed"
// sends it again now.
func TestFailingDeliveriesAreFoundAndResent(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	down := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	hook, _ := s.CreateWebhook(down.URL, map[string]any{"events": []string{"payment.created"}})
	start := time.Now().Add(-time.Minute)
	s.CreatePayment(map[string]any{"amount_cents": 500})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))

	list := func(status string) []any {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + hook + "/deliveries?status=" + status, Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)["data"].([]any)
	}
	require.Len(t, list("failing"), 1, "a delivery retrying after a 503 is failing")
	require.Equal(t, "pending", list("failing")[0].(map[string]any)["status"])
	require.Empty(t, list("failed"), "not given up yet")
	require.Len(t, list("pending"), 1)

	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/resend_failed", Key: s.TestKey,
		Body: map[string]any{"since": start.Unix()}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, float64(1), r.JSON(t)["requeued"], "a retrying delivery is resent now")
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "due at once, not at its next retry")
	require.Len(t, down.Requests(), 2)

	bad := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + hook + "/deliveries?status=failling", Key: s.TestKey})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Equal(t, "status", bad.ErrorParam(t))
}
