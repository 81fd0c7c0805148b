package web

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers"
	"payments/store"
)

// HeaderRequestID carries the request id on every response.
const HeaderRequestID = "X-Request-Id"

// requestID gives every request a req_ id, on the response and in the logs.
func requestID(c *fiber.Ctx) error {
	ensureRequestID(c)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.Next()
}

// ensureRequestID returns the request's id, minting it if no middleware has
// (errors Fiber raises before routing, like an oversized body, skip them).
func ensureRequestID(c *fiber.Ctx) string {
	id := handlers.RequestID(c)
	if id == "" {
		id = store.NewID(store.PrefixRequest)
		handlers.SetRequestID(c, id)
		c.Set(HeaderRequestID, id)
	}
	return id
}

// accessLog writes one line per request and renders errors first, so the
// line has the final status. It logs no headers and no body: they can hold secrets.
func accessLog(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		// Typed attributes: the access line is written for every request,
		// and LogAttrs skips boxing and re-inspecting each value.
		attrs := make([]slog.Attr, 0, 9)
		attrs = append(attrs,
			slog.String("request_id", handlers.RequestID(c)),
			slog.String("method", c.Method()),
			slog.String("path", c.Path()),
			slog.Int("status", c.Response().StatusCode()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("ip", c.IP()),
		)
		if k := handlers.APIKey(c); k != nil {
			attrs = append(attrs, slog.String("account_id", k.AccountID), slog.String("api_key_id", k.ID),
				slog.Bool("livemode", k.Livemode))
		}
		log.LogAttrs(c.UserContext(), slog.LevelInfo, "request", attrs...)
		return nil
	}
}
