package request

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/gofiber/fiber/v2"
)

// Param is the path parameter name, percent-decoded (a client may encode
// any character of an id, and generated clients encode ':'), copied out of
// Fiber's reused buffer. ok is false when the parameter is not a valid
// escape or not text (IsText): no object has such an id; raw is then what
// was sent (made valid UTF-8), for the 404 that says so.
func Param(c *fiber.Ctx, name string) (value string, ok bool) {
	raw := c.Params(name)
	value, err := url.PathUnescape(raw)
	if err != nil || !IsText([]byte(value), false) {
		return Quotable(raw), false
	}
	if value == raw {
		return string([]byte(raw)), true
	}
	return value, true
}

// Quotable is what an error may quote back of bytes a client sent that are
// not text (a path parameter, a header or query parameter name): control
// characters dropped, invalid UTF-8 replaced.
func Quotable(raw string) string {
	return strings.ToValidUTF8(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, raw), "\uFFFD")
}
