package reply

import (
	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
)

// Page writes a templ component as the HTML response with status.
func Page(c *fiber.Ctx, status int, component templ.Component) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Status(status)
	return component.Render(c.UserContext(), c.Response().BodyWriter())
}
