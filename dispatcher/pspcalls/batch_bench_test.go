package pspcalls_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"payments/pix/calendar"
	"payments/web/webtest"
)

// BenchmarkBatchOf1000 measures a batch of 1,000 due-date charges from
// outside: created (the POST's answer, test and live mode) and, live,
// registered at the PSP sandbox (PUT /lotecobv, then GET /lotecobv and a
// GET /cobv per charge for its code) until the batch reads all
// registered. `make bench-batch` runs it; figures in BENCHMARKS.md.
func BenchmarkBatchOf1000(b *testing.B) {
	s := webtest.New(b, webtest.WithPSP(webtest.PSPOptions{MTLS: true}))
	due := calendar.Today(time.Now()).AddDays(20).String()
	body := func(run int) map[string]any {
		items := make([]any, 1000)
		for i := range items {
			items[i] = map[string]any{"amount_cents": 10_000 + i, "external_id": fmt.Sprintf("r%d-aluno-%04d", run, i), "due_date": due,
				"days_after_due": 10, "fine": map[string]any{"percent": "2.00"}, "interest": map[string]any{"percent_per_month": "1.00"},
				"discounts": map[string]any{"fixed": []any{map[string]any{"until": due, "percent": "5.00"}}},
				"customer":  map[string]any{"name": fmt.Sprintf("Aluno %d", i), "email": "familia@example.com", "document": "529.982.247-25"}}
		}
		return map[string]any{"description": "Mensalidades", "payments": items}
	}
	var created, createdLive, registered time.Duration
	for run := range b.N {
		start := time.Now()
		r := s.DoRaw(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Body: body(run)})
		if r.Status != http.StatusCreated {
			b.Fatalf("test batch: %d %s", r.Status, r.Body)
		}
		created += time.Since(start)

		start = time.Now()
		r = s.DoRaw(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.LiveKey, Body: body(run)})
		if r.Status != http.StatusCreated {
			b.Fatalf("live batch: %d %s", r.Status, r.Body)
		}
		createdLive += time.Since(start)
		id := r.JSON(b)["id"].(string)
		for {
			got := s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/payment_batches/" + id, Key: s.LiveKey}).JSON(b)
			counts := got["counts"].(map[string]any)
			if counts["refused"].(float64) > 0 {
				b.Fatalf("refused: %v", counts)
			}
			if counts["registered"].(float64) == 1000 {
				break
			}
			if time.Since(start) > 2*time.Minute {
				b.Fatalf("not registered after 2 min: %v", counts)
			}
			time.Sleep(20 * time.Millisecond)
		}
		registered += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(created.Milliseconds())/n, "ms-created-test")
	b.ReportMetric(float64(createdLive.Milliseconds())/n, "ms-created-live")
	b.ReportMetric(float64(registered.Milliseconds())/n, "ms-registered-live")
}
