// Package metrics is what the service tells Prometheus: HTTP requests by
// route and status, webhook attempts by outcome and their latency, the
// delivery queue (depth, oldest due age, leases), PSP calls by operation
// and outcome, and the database pool. One Metrics is made in main and
// handed to the web app and the dispatchers; its methods do nothing on a
// nil receiver, so tests and tools may leave it out.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Queue is the state of the outbound queues at one moment.
type Queue struct {
	// Due deliveries (of enabled webhooks) waiting for a worker, Pending
	// all those not finished, Leased those being attempted.
	Due, Pending, Leased int
	// OldestDue is how long the oldest due delivery has waited.
	OldestDue time.Duration
	// DisabledWebhooks counts webhooks the service disabled (410, failing).
	DisabledWebhooks int
	// PSPPending counts PSP calls not yet done.
	PSPPending int
}

// Metrics holds every collector, in its own registry.
type Metrics struct {
	registry        *prometheus.Registry
	httpRequests    *prometheus.CounterVec
	httpDuration    *prometheus.HistogramVec
	attempts        *prometheus.CounterVec
	attemptDuration *prometheus.HistogramVec
	deliveryLag     prometheus.Histogram
	pspCalls        *prometheus.CounterVec
	pspDuration     *prometheus.HistogramVec
	refusals        *prometheus.CounterVec
	// httpSeries caches each (route, method, status)'s counter and
	// histogram: finding them by label values hashes and checks every
	// value, a few microseconds on each request (measured on get and
	// create, BENCHMARKS.md).
	httpSeries sync.Map // httpKey -> *httpSeries
	// attemptSeries holds each attempt outcome's counter and histogram,
	// made once (an attempt is the dispatcher's hottest path).
	attemptSeries map[string]attemptSeries
}

// Outcomes of a webhook attempt, as Attempt counts them.
const (
	OutcomeSucceeded = "succeeded"
	OutcomeRetrying  = "retrying" // failed; another attempt is scheduled
	OutcomeFailed    = "failed"   // failed; retries are exhausted
	OutcomeDisabled  = "disabled" // failed; the webhook was disabled (410 Gone, or failing for days)
)

// AttemptOutcomes are the outcomes Attempt counts.
var AttemptOutcomes = []string{OutcomeSucceeded, OutcomeRetrying, OutcomeFailed, OutcomeDisabled}

type attemptSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

type httpKey struct {
	route, method string
	status        int
}

type httpSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// New registers the collectors. queue reads the queues at each scrape;
// db's pool statistics are exported as go_sql_*.
func New(db *sql.DB, queue func(context.Context) (Queue, error)) *Metrics {
	reg := prometheus.NewRegistry()
	latency := []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15}
	m := &Metrics{
		registry: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payments_http_requests_total", Help: "HTTP requests answered, by route template, method and status.",
		}, []string{"route", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "payments_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route template and method.",
			Buckets: latency,
		}, []string{"route", "method"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payments_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome: succeeded, retrying, failed (retries exhausted), disabled (the webhook was).",
		}, []string{"outcome"}),
		attemptDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "payments_webhook_attempt_duration_seconds", Help: "Time from sending a delivery to its answer, by outcome.",
			Buckets: latency,
		}, []string{"outcome"}),
		deliveryLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "payments_webhook_delivery_lag_seconds", Help: "Time from an event to its first delivery attempt.",
			Buckets: latency,
		}),
		pspCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payments_psp_calls_total", Help: "Calls to the PSP by operation and outcome (done, retry, refused).",
		}, []string{"operation", "outcome"}),
		pspDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "payments_psp_call_duration_seconds", Help: "Time a PSP call took, by operation.", Buckets: latency,
		}, []string{"operation"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payments_limit_refusals_total",
			Help: "Requests refused by a limit on a shared resource: event_streams_per_key, event_streams_per_account, invalid_api_key (per address), sign_in (per address or account).",
		}, []string{"limit"}),
	}
	m.attemptSeries = map[string]attemptSeries{}
	for _, o := range AttemptOutcomes {
		m.attemptSeries[o] = attemptSeries{count: m.attempts.WithLabelValues(o), duration: m.attemptDuration.WithLabelValues(o)}
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.attempts, m.attemptDuration, m.deliveryLag, m.pspCalls, m.pspDuration, m.refusals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if db != nil {
		reg.MustRegister(collectors.NewDBStatsCollector(db, "payments"))
	}
	if queue != nil {
		reg.MustRegister(newQueueCollector(queue))
	}
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// HTTP records one answered request.
func (m *Metrics) HTTP(route, method string, status int, took time.Duration) {
	if m == nil {
		return
	}
	key := httpKey{route, method, status}
	s, ok := m.httpSeries.Load(key)
	if !ok {
		// Copies: route and method may live in the caller's reused buffers.
		key = httpKey{strings.Clone(route), strings.Clone(method), status}
		s, _ = m.httpSeries.LoadOrStore(key, &httpSeries{
			requests: m.httpRequests.WithLabelValues(key.route, key.method, strconv.Itoa(status)),
			duration: m.httpDuration.WithLabelValues(key.route, key.method),
		})
	}
	series := s.(*httpSeries)
	series.requests.Inc()
	series.duration.Observe(took.Seconds())
}

// Attempt records one webhook delivery attempt; lag is the time since its
// event for a first attempt (0 otherwise).
func (m *Metrics) Attempt(outcome string, took, lag time.Duration) {
	if m == nil {
		return
	}
	s, ok := m.attemptSeries[outcome]
	if !ok {
		s = attemptSeries{count: m.attempts.WithLabelValues(outcome), duration: m.attemptDuration.WithLabelValues(outcome)}
	}
	s.count.Inc()
	s.duration.Observe(took.Seconds())
	if lag > 0 {
		m.deliveryLag.Observe(lag.Seconds())
	}
}

// PSPCall records one call to the PSP.
func (m *Metrics) PSPCall(operation, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.pspCalls.WithLabelValues(operation, outcome).Inc()
	m.pspDuration.WithLabelValues(operation).Observe(took.Seconds())
}

// Limits a request can be refused by (Refused's label).
const (
	LimitStreamsPerKey     = "event_streams_per_key"
	LimitStreamsPerAccount = "event_streams_per_account"
	LimitInvalidAPIKey     = "invalid_api_key"
	LimitSignIn            = "sign_in"
)

// Refused counts a request refused by limit.
func (m *Metrics) Refused(limit string) {
	if m == nil {
		return
	}
	m.refusals.WithLabelValues(limit).Inc()
}

// WatchStreams reports the event streams open now and the store reads
// their feeds made, read when Prometheus scrapes.
func (m *Metrics) WatchStreams(open func() float64, storeReads func() float64) {
	if m == nil {
		return
	}
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "payments_event_streams_open",
			Help: "Event streams (GET /api/v1/events/stream) open in this process."}, open),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "payments_event_stream_store_reads_total",
			Help: "Reads of the events table by the streams' shared feeds and by streams catching up."}, storeReads))
}

// queueCollector reads the queues when Prometheus scrapes.
type queueCollector struct {
	read                                            func(context.Context) (Queue, error)
	due, pending, leased, oldest, disabled, pspWait *prometheus.Desc
	scrapeErrors                                    prometheus.Counter
}

func newQueueCollector(read func(context.Context) (Queue, error)) *queueCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return &queueCollector{read: read,
		due:      d("payments_webhook_deliveries_due", "Deliveries of enabled webhooks due now and not being attempted."),
		pending:  d("payments_webhook_deliveries_pending", "Deliveries not finished (due, waiting for a retry, or being attempted)."),
		leased:   d("payments_webhook_deliveries_leased", "Deliveries held by a live lease: being attempted, or next in a worker's run."),
		oldest:   d("payments_webhook_oldest_due_seconds", "How long the oldest due delivery has waited (0 when none)."),
		disabled: d("payments_webhooks_disabled", "Webhooks the service disabled (410 Gone, or failing for days)."),
		pspWait:  d("payments_psp_calls_pending", "PSP calls queued or retrying."),
		scrapeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "payments_queue_scrape_errors_total", Help: "Scrapes that could not read the queues."}),
	}
}

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{q.due, q.pending, q.leased, q.oldest, q.disabled, q.pspWait} {
		ch <- d
	}
	q.scrapeErrors.Describe(ch)
}

func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s, err := q.read(ctx)
	if err != nil {
		q.scrapeErrors.Inc()
	} else {
		g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
		g(q.due, float64(s.Due))
		g(q.pending, float64(s.Pending))
		g(q.leased, float64(s.Leased))
		g(q.oldest, s.OldestDue.Seconds())
		g(q.disabled, float64(s.DisabledWebhooks))
		g(q.pspWait, float64(s.PSPPending))
	}
	q.scrapeErrors.Collect(ch)
}
