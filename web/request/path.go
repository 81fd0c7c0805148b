package request

import (
	"net/url"

	"github.com/gofiber/fiber/v2"
)

// Param is the path parameter name, percent-decoded (a client may encode
// any character of an id, and generated clients encode ':'), copied out of
// Fiber's reused buffer. ok is false when the parameter is not a valid
// escape; raw is then what was sent, for the 404 that says so.
func Param(c *fiber.Ctx, name string) (value string, ok bool) {
	raw := c.Params(name)
	value, err := url.PathUnescape(raw)
	if err != nil {
		return string([]byte(raw)), false
	}
	if value == raw {
		return string([]byte(raw)), true
	}
	return value, true
}
