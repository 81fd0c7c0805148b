// Package ops serves the operators' endpoints: liveness and readiness.
package ops

import (
	"context"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Health serves /healthz (the process is up) and /readyz (its dependencies answer).
type Health struct {
	// Checks are named dependency probes: the database, and Redis when configured.
	Checks map[string]func(ctx context.Context) error
}

// Live handles GET /healthz.
func (h *Health) Live(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// Ready handles GET /readyz: 200 when every check passes within 2s, else 503.
func (h *Health) Ready(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	results := map[string]string{}
	status := http.StatusOK
	for name, check := range h.Checks {
		if err := check(ctx); err != nil {
			results[name] = "unavailable"
			status = http.StatusServiceUnavailable
			continue
		}
		results[name] = "ok"
	}
	body := fiber.Map{"status": "ready", "checks": results}
	if status != http.StatusOK {
		body["status"] = "unavailable"
	}
	return c.Status(status).JSON(body)
}
