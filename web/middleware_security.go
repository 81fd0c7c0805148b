package web

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// contentSecurityPolicy allows the pages only their own scripts, styles,
// images and requests: no inline script or style (htmx is configured to add
// none), nothing embedded, no framing by anyone (the Refund and Delete
// buttons cannot be clickjacked), forms posted only here.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// permissionsPolicy turns off the browser features no page uses.
const permissionsPolicy = "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), bluetooth=(), " +
	"midi=(), magnetometer=(), gyroscope=(), accelerometer=(), display-capture=()"

// securityHeaders puts the browser's protections on every page (dashboard,
// sign-in, checkout, their errors and assets). The JSON API and the PSP's
// callbacks are not pages and skip them.
func securityHeaders(c *fiber.Ctx) error {
	if p := c.Path(); !strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/psp/") {
		h := &c.Response().Header
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Permissions-Policy", permissionsPolicy)
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
	}
	return c.Next()
}
