// Package request is what a handler reads from its request: what the
// middleware established (the request id, the API key and the scope it
// sees, the signed-in dashboard user, the CSRF token), path parameters
// percent-decoded, and JSON bodies read field by field.
package request

import (
	"github.com/gofiber/fiber/v2"

	"payments/store"
)

type localKey int

const (
	localAPIKey localKey = iota
	localRequestID
	localUser
	localIdempotency
)

// SetAPIKey records the authenticated key of the request.
func SetAPIKey(c *fiber.Ctx, k *store.APIKey) { c.Locals(localAPIKey, k) }

// APIKey is the authenticated key; routes under the API auth middleware always have one.
func APIKey(c *fiber.Ctx) *store.APIKey {
	k, _ := c.Locals(localAPIKey).(*store.APIKey)
	return k
}

// Scope is what the request's key may see.
func Scope(c *fiber.Ctx) store.Scope {
	k := APIKey(c)
	return store.Scope{AccountID: k.AccountID, Livemode: k.Livemode}
}

// Idempotency is the request's Idempotency-Key and the hash of the request
// it came with, when it came with one.
type Idempotency struct {
	Key  string
	Hash []byte
}

// SetIdempotency records the request's key and hash.
func SetIdempotency(c *fiber.Ctx, key string, hash []byte) {
	c.Locals(localIdempotency, Idempotency{Key: key, Hash: hash})
}

// IdempotencyOf is the request's key and hash (zero without a key).
func IdempotencyOf(c *fiber.Ctx) Idempotency {
	i, _ := c.Locals(localIdempotency).(Idempotency)
	return i
}

// SetRequestID records the request id.
func SetRequestID(c *fiber.Ctx, id string) { c.Locals(localRequestID, id) }

// RequestID is the request's req_ id, or "" before the middleware ran.
func RequestID(c *fiber.Ctx) string {
	id, _ := c.Locals(localRequestID).(string)
	return id
}

// User is a signed-in dashboard user and the mode they look at.
type User struct {
	*store.User
	Livemode bool
}

// SetUser records the signed-in user of a dashboard request.
func SetUser(c *fiber.Ctx, u *store.User, livemode bool) {
	c.Locals(localUser, &User{User: u, Livemode: livemode})
}

// CurrentUser is the signed-in dashboard user, or nil.
func CurrentUser(c *fiber.Ctx) *User {
	u, _ := c.Locals(localUser).(*User)
	return u
}

// CSRFContextKey is where the CSRF middleware leaves the request's token.
const CSRFContextKey = "csrf"

// CSRFToken is the request's CSRF token, for forms and htmx.
func CSRFToken(c *fiber.Ctx) string {
	t, _ := c.Locals(CSRFContextKey).(string)
	return t
}

// Actor is who asks in this request, as the change records them: the
// signed-in user on the dashboard, the API key on the API.
func Actor(c *fiber.Ctx) store.Actor {
	if u := CurrentUser(c); u != nil {
		return store.ActorUser(u.ID)
	}
	if k := APIKey(c); k != nil {
		return store.ActorAPIKey(k.ID)
	}
	return store.ActorSystem
}
