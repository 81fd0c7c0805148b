// Package request is what a handler reads from its request: what the
// middleware established (the request id, the API key and the scope it
// sees, the signed-in dashboard user, the CSRF token), path parameters
// percent-decoded, and JSON bodies read field by field.
package request

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/store"
	"payments/versions"
)

type localKey int

const (
	localAPIKey localKey = iota
	localRequestID
	localUser
	localIdempotency
	localVersion
)

// SetVersion records the dated API version the request is answered in,
// and whether its Payments-Version header named it (else: the pin). The
// current version unasked is recorded as nothing: the request of nearly
// every integration costs no allocation for it.
func SetVersion(c *fiber.Ctx, version string, asked bool) {
	if !asked && version == versions.API.Current() {
		if c.Locals(localVersion) != nil {
			c.Locals(localVersion, nil)
		}
		return
	}
	c.Locals(localVersion, &requestVersion{version, asked})
}

// Version is the dated API version the request is answered in (the
// current one unless SetVersion recorded another), and whether the
// request's header named it.
func Version(c *fiber.Ctx) (version string, asked bool) {
	v, _ := c.Locals(localVersion).(*requestVersion)
	if v == nil {
		return versions.API.Current(), false
	}
	return v.date, v.asked
}

type requestVersion struct {
	date  string
	asked bool
}

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

// User is a signed-in dashboard user, the mode they look at, and when
// they last proved their second factor in this session.
type User struct {
	*store.User
	Livemode       bool
	SecondFactorAt time.Time
}

// SetUser records the signed-in user of a dashboard request.
func SetUser(c *fiber.Ctx, u *User) { c.Locals(localUser, u) }

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

// Actor is who asks in this request, as operations check and record them:
// the signed-in user with their role in the account they act on, or the
// API key with its name and permissions; with the request's address, user
// agent and id.
func Actor(c *fiber.Ctx) store.Actor {
	var a store.Actor
	switch u, k := CurrentUser(c), APIKey(c); {
	case u != nil:
		a = store.ActorUser(u.ID)
		a.Name, a.Role, a.SecondFactorAt, a.SecondFactor = u.Email, u.Role, u.SecondFactorAt, u.HasSecondFactor()
	case k != nil:
		a = store.ActorAPIKey(k.ID)
		a.Name, a.Permissions, a.MakerRole = k.Name, k.Permissions, k.MakerLimit()
	default:
		return store.ActorSystem
	}
	return from(c, a)
}

// Visitor is who asks on the pages before sign-in: their address and
// browser, no one yet.
func Visitor(c *fiber.Ctx) store.Actor {
	return from(c, store.Actor{ID: "visitor", Door: store.DoorDashboard})
}

// Person is u asking through the dashboard before the request has them
// signed in (the step that signs them in, or proves their second factor).
func Person(c *fiber.Ctx, u *store.User) store.Actor {
	a := store.ActorUser(u.ID)
	a.Name = u.Email
	return from(c, a)
}

// from is a with the request's address, user agent and id.
func from(c *fiber.Ctx, a store.Actor) store.Actor {
	a.IP, a.UserAgent, a.RequestID = c.IP(), string(c.Request().Header.UserAgent()), RequestID(c)
	return a
}

// PSP is the payment service provider asking through its callbacks, with
// the request's address, user agent and id.
func PSP(c *fiber.Ctx) store.Actor { return from(c, store.ActorPSP) }
