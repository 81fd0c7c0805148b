package web_test

import (
	"context"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// /metrics counts requests by route template and status and webhook
// attempts by outcome, shows the delivery queue and the database pool; every
// metric the alert rules and the Grafana dashboard use is there.
func TestMetricsExposeWhatTheAlertsUse(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	s.CreateLivePayment(map[string]any{"amount_cents": 2500}) // a PSP call (the charge's registration)
	failing := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	s.CreateWebhook(failing.URL, map[string]any{"events": []string{"payment.created"}})
	p := s.CreatePayment(map[string]any{"amount_cents": 100})
	s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.TestKey})
	s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/nope", Key: s.TestKey})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))

	r := s.DoRaw(webtest.Request{Method: "GET", Path: "/metrics"})
	require.Equal(t, http.StatusOK, r.Status)
	body := string(r.Body)
	for _, want := range []string{
		`payments_http_requests_total{method="POST",route="/api/v1/payments",status="201"} 2`,
		`payments_http_requests_total{method="GET",route="/api/v1/payments/:ref",status="200"} 1`,
		`payments_http_requests_total{method="GET",route="/api/v1/payments/:ref",status="404"} 1`,
		`payments_webhook_attempts_total{outcome="retrying"} 1`,
		`payments_webhook_deliveries_pending 1`,
		`payments_webhook_deliveries_due 0`,
		`go_sql_max_open_connections{db_name="payments"} 20`,
		`payments_psp_calls_total{operation="cob.create",outcome="succeeded"} 1`,
	} {
		require.Contains(t, body, want)
	}
	exported := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z_]+?)(_bucket|_sum|_count)?[{ ]`).FindAllStringSubmatch(body, -1) {
		exported[m[1]] = true
		exported[m[1]+m[2]] = true
	}
	for _, file := range []string{"../ops/prometheus/alerts.yml", "../ops/grafana/payments.json"} {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, name := range regexp.MustCompile(`\b(payments_[a-z_]+|go_sql_[a-z_]+|process_[a-z_]+|go_goroutines)\b`).FindAllString(string(raw), -1) {
			require.True(t, exported[name] || exported[strings.TrimSuffix(name, "_total")], "%s uses %s, which /metrics does not export", file, name)
		}
	}
}
