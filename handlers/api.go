package handlers

import (
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/store"
)

// PixReceiver is the platform's PIX account that BR Codes pay into.
type PixReceiver struct {
	Key  string
	City string
}

// API serves /api/v1.
type API struct {
	Store   *store.Store
	Log     *slog.Logger
	BaseURL string
	Pix     PixReceiver
	Tester  WebhookTester
	// AllowPrivateNetworks accepts http and private addresses in webhook URLs (dev/test only).
	AllowPrivateNetworks bool
}

// requireJSON refuses bodies that do not declare themselves JSON.
func requireJSON(c *fiber.Ctx) *Error {
	mediaType, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mediaType != fiber.MIMEApplicationJSON {
		return InvalidRequest(http.StatusUnsupportedMediaType, "content_type_unsupported",
			"Send the request body as JSON with the header Content-Type: application/json.")
	}
	return nil
}

// pathRef copies a path parameter (Fiber reuses its buffer after the handler).
func pathRef(c *fiber.Ctx, name string) string {
	return strings.Clone(c.Params(name))
}

// listBody is the envelope of every list response.
type listBody[T any] struct {
	Object  string `json:"object"`
	URL     string `json:"url"`
	HasMore bool   `json:"has_more"`
	Data    []T    `json:"data"`
}
