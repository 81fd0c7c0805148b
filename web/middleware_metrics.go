package web

import (
	"context"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/metrics"
	"payments/store"
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
// without, only a direct connection from a loopback or private address
// (the scraper's network). A request a reverse proxy forwarded is never
// direct, whatever address the proxy connects from: it comes from a
// trusted proxy or carries a forwarding header. Behind a proxy, scrape
// with METRICS_TOKEN or on METRICS_ADDR.
func metricsAccess(token string, trustedProxies bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if token != "" {
			given := c.Get(fiber.HeaderAuthorization)
			if subtle.ConstantTimeCompare([]byte(given), []byte("Bearer "+token)) != 1 {
				return &reply.Error{Status: http.StatusUnauthorized, Type: reply.TypeAuthentication, Code: "metrics_token_invalid",
					Message: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>."}
			}
			return c.Next()
		}
		if ip := c.Context().RemoteIP(); !ip.IsLoopback() && !ip.IsPrivate() || forwarded(c) || trustedProxies && c.IsProxyTrusted() {
			return reply.Forbidden("metrics_forbidden",
				"GET /metrics answers direct connections from private addresses only, unless METRICS_TOKEN is set.")
		}
		return c.Next()
	}
}

// forwardingHeaders are what proxies add to a request they pass on.
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip", "Via"}

func forwarded(c *fiber.Ctx) bool {
	for _, h := range forwardingHeaders {
		if len(c.Request().Header.Peek(h)) > 0 {
			return true
		}
	}
	return false
}

// QueueReader reads the outbound queues for each scrape of /metrics.
func QueueReader(st *store.Store) func(context.Context) (metrics.Queue, error) {
	return func(ctx context.Context) (metrics.Queue, error) {
		q, err := st.QueueState(ctx, st.Now())
		return metrics.Queue{Due: q.Due, Pending: q.Pending, Leased: q.Leased, DisabledWebhooks: q.DisabledWebhooks,
			PSPPending: q.PSPPending, OldestDue: time.Duration(q.OldestDueSeconds * float64(time.Second))}, err
	}
}
