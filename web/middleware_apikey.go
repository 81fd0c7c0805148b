package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

// apiKeyAuth authenticates /api/v1 requests by `Authorization: Bearer <key>`
// or `X-API-Key: <key>`. Both at once must name the same key.
// Invalid keys are throttled per client address (invalidKeyThrottle).
func apiKeyAuth(keys *keyCache, throttle *invalidKeyThrottle) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderCacheControl, "no-store")
		ip := c.IP()
		if err := throttle.refusing(c, ip); err != nil {
			return err
		}
		secret, apiErr := presentedKey(c)
		if apiErr != nil {
			if apiErr.Code == "api_key_invalid" {
				return throttle.failed(c, ip, apiErr)
			}
			return apiErr
		}
		if !strings.HasPrefix(secret, "sk_live_") && !strings.HasPrefix(secret, "sk_test_") {
			return throttle.failed(c, ip, invalidKey())
		}
		k, err := keys.lookup(c.UserContext(), secret)
		if errors.Is(err, store.ErrNotFound) {
			return throttle.failed(c, ip, invalidKey())
		}
		if err != nil {
			return err
		}
		if k.RevokedAt != nil {
			return throttle.failed(c, ip,
				authError("api_key_revoked", "This API key was revoked. Create a new key in the dashboard."))
		}
		request.SetAPIKey(c, k)
		return c.Next()
	}
}

func presentedKey(c *fiber.Ctx) (string, *reply.Error) {
	var bearer string
	if h := c.Get(fiber.HeaderAuthorization); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			return "", authError("api_key_invalid", "The Authorization header must be 'Bearer <API key>'.")
		}
		bearer = token
	}
	xKey := strings.TrimSpace(c.Get("X-API-Key"))
	switch {
	case bearer != "" && xKey != "" && bearer != xKey:
		return "", reply.InvalidRequest(http.StatusBadRequest, "credentials_conflict",
			"The Authorization and X-API-Key headers carry different keys. Send one key.")
	case bearer != "":
		return strings.Clone(bearer), nil
	case xKey != "":
		return strings.Clone(xKey), nil
	}
	c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="payments"`)
	return "", authError("api_key_missing",
		"No API key provided. Send it as 'Authorization: Bearer <API key>' or 'X-API-Key: <API key>'.")
}

func invalidKey() *reply.Error {
	// The message never echoes the key: it is a secret even when wrong.
	return authError("api_key_invalid", "Invalid API key provided.")
}

func authError(code, message string) *reply.Error {
	return &reply.Error{Status: http.StatusUnauthorized, Type: reply.TypeAuthentication, Code: code, Message: message}
}
