package api

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every route.
//
//go:embed openapi.json
var OpenAPIDocument []byte

// OpenAPI handles GET /api/v1/openapi.json.
func OpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.Send(OpenAPIDocument)
}
