package web

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
)

// rateCounter counts requests per key in fixed windows.
type rateCounter interface {
	// hit counts one request for key in the window starting at window (of
	// length size) and returns the window's count including this request.
	hit(ctx context.Context, key string, window time.Time, size time.Duration) (int64, error)
}

// rateLimit allows each API key limitLive or limitTest requests per second
// and advertises the budget in RateLimit-* headers (IETF draft names).
func rateLimit(counter rateCounter, limitLive, limitTest int, log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		k := request.APIKey(c)
		limit := limitTest
		if k.Livemode {
			limit = limitLive
		}
		now := time.Now()
		window := now.Truncate(time.Second)
		count, err := counter.hit(c.UserContext(), k.ID, window, time.Second)
		if err != nil {
			// A limiter outage must not take the API down with it.
			log.WarnContext(c.UserContext(), "rate limiter unavailable; request allowed",
				"request_id", request.RequestID(c), "error", err.Error())
			return c.Next()
		}
		remaining := max(int64(limit)-count, 0)
		resetIn := max(int(window.Add(time.Second).Sub(now).Seconds()+0.999), 1)
		c.Set("RateLimit-Limit", strconv.Itoa(limit))
		c.Set("RateLimit-Remaining", strconv.FormatInt(remaining, 10))
		c.Set("RateLimit-Reset", strconv.Itoa(resetIn))
		c.Set("RateLimit-Policy", strconv.Itoa(limit)+";w=1")
		if count > int64(limit) {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(resetIn))
			return &reply.Error{Status: http.StatusTooManyRequests, Type: reply.TypeRateLimit, Code: "rate_limited",
				Message: "Too many requests for this API key: at most " + strconv.Itoa(limit) + " per second. Retry after the Retry-After delay."}
		}
		return c.Next()
	}
}
