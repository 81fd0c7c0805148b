package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/store"
)

// ownWritesCookie keeps a browser's reads on the primary after a change
// it made, for as long as a replica in use may lag.
const ownWritesCookie = "payments_own_writes"

// readsMayLag lets the dashboard's pages read from the replica
// (store.MayLag), except right after a change of the reader's own: a form
// posted, then the page it redirects to must show it. A change sets
// ownWritesCookie for maxLag (rounded up to the second, plus one): past
// that any replica still in use has it. maxLag 0: no replica.
func readsMayLag(maxLag time.Duration, secure bool) fiber.Handler {
	hold := int((maxLag+time.Second-1)/time.Second) + 1
	return func(c *fiber.Ctx) error {
		if maxLag <= 0 {
			return c.Next()
		}
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead:
			if c.Cookies(ownWritesCookie) == "" {
				c.SetUserContext(store.MayLag(c.UserContext()))
			}
			return c.Next()
		}
		err := c.Next()
		c.Cookie(&fiber.Cookie{Name: ownWritesCookie, Value: "1", Path: "/", MaxAge: hold,
			HTTPOnly: true, Secure: secure, SameSite: fiber.CookieSameSiteLaxMode})
		return err
	}
}
