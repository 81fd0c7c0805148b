package handlers

import (
	"github.com/gofiber/fiber/v2"

	"payments/store"
)

type localKey int

const (
	localAPIKey localKey = iota
	localRequestID
)

// SetAPIKey records the authenticated key of the request.
func SetAPIKey(c *fiber.Ctx, k *store.APIKey) { c.Locals(localAPIKey, k) }

// APIKey is the authenticated key; routes under the API auth middleware always have one.
func APIKey(c *fiber.Ctx) *store.APIKey {
	k, _ := c.Locals(localAPIKey).(*store.APIKey)
	return k
}

// scope is what the request's key may see.
func scope(c *fiber.Ctx) store.Scope {
	k := APIKey(c)
	return store.Scope{AccountID: k.AccountID, Livemode: k.Livemode}
}

// SetRequestID records the request id.
func SetRequestID(c *fiber.Ctx, id string) { c.Locals(localRequestID, id) }

// RequestID is the request's req_ id, or "" before the middleware ran.
func RequestID(c *fiber.Ctx) string {
	id, _ := c.Locals(localRequestID).(string)
	return id
}
