package web

import (
	"context"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/metrics"
	"payments/store"
	"payments/web/reply"
)

// countRequests records every answer by route template (never the raw
// path: ids would make a series each) and status. Errors are rendered
// here, so the status counted is the one sent.
func countRequests(m *metrics.Metrics) fiber.Handler {
	if m == nil {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		route := c.Route().Path
		if c.Response().StatusCode() == http.StatusNotFound && route == "/" {
			route = "unmatched"
		}
		// The method lives in a buffer the next request reuses: HTTP copies
		// it the first time it sees it.
		m.HTTP(route, c.Method(), c.Response().StatusCode(), time.Since(start))
		return nil
	}
}

// metricsAccess lets Prometheus in: with a token, whoever shows it;
// without, only loopback and private addresses (the scraper's network).
func metricsAccess(token string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if token != "" {
			given := c.Get(fiber.HeaderAuthorization)
			if subtle.ConstantTimeCompare([]byte(given), []byte("Bearer "+token)) != 1 {
				return &reply.Error{Status: http.StatusUnauthorized, Type: reply.TypeAuthentication, Code: "metrics_token_invalid",
					Message: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>."}
			}
			return c.Next()
		}
		if ip := c.Context().RemoteIP(); !ip.IsLoopback() && !ip.IsPrivate() {
			return reply.Forbidden("metrics_forbidden", "GET /metrics answers private addresses only, unless METRICS_TOKEN is set.")
		}
		return c.Next()
	}
}

// QueueReader reads the outbound queues for each scrape of /metrics.
func QueueReader(st *store.Store) func(context.Context) (metrics.Queue, error) {
	return func(ctx context.Context) (metrics.Queue, error) {
		q, err := st.QueueState(ctx, st.Now())
		return metrics.Queue{Due: q.Due, Pending: q.Pending, Leased: q.Leased, DisabledWebhooks: q.DisabledWebhooks,
			PSPPending: q.PSPPending, OldestDue: time.Duration(q.OldestDueSeconds * float64(time.Second))}, err
	}
}
