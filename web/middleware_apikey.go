package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
)

// apiKeyAuth authenticates /api/v1 requests by `Authorization: Bearer <key>`
// or `X-API-Key: <key>`. Both at once must name the same key.
// Invalid keys are throttled per client address (invalidKeyThrottle).
// A key with an allow-list answers 403 ip_not_allowed from elsewhere (the
// client's address: behind TRUSTED_PROXIES, the one they name). Each use is
// noted for the key's "last used" (usage), written in batches.
func apiKeyAuth(keys *keyCache, throttle *invalidKeyThrottle, usage *KeyUsage) fiber.Handler {
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
		if !hasKeyPrefix(secret) {
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
		if !k.AllowsIP(ip) {
			return reply.Forbidden("ip_not_allowed",
				"This API key may not be used from this address: it has an allow-list. Add the address to the key's allowed IPs, or use another key.")
		}
		usage.note(k.ID, ip)
		pinVersion(c, k.Account)
		acting, err := actingFor(c, keys.st, k)
		if err != nil {
			return err
		}
		request.SetAPIKey(c, acting)
		return c.Next()
	}
}

// AccountHeader names the subaccount a platform's key acts for.
const AccountHeader = "Payments-Account"

// actingFor is the key as it acts in this request: for the subaccount
// Payments-Account names (a copy of k on that account: its scope, its
// idempotency keys, its audit rows), or for its own account. A key limited
// to chosen subaccounts acts only for them; an unknown, foreign or
// disabled subaccount is 403 account_invalid, never a hint of whose it is.
func actingFor(c *fiber.Ctx, st *store.Store, k *store.APIKey) (*store.APIKey, error) {
	id := strings.TrimSpace(c.Get(AccountHeader))
	if id == "" {
		if k.Subaccounts != nil {
			return nil, reply.Forbidden("subaccount_required",
				"This API key acts only for its subaccounts: name one with the Payments-Account header.")
		}
		return k, nil
	}
	invalid := reply.Forbidden("account_invalid", fmt.Sprintf(
		"This API key may not act for account '%s': it is not an active subaccount of the key's account, or the key is limited to other subaccounts.", reply.Truncate(id)))
	if k.Subaccounts != nil && !slices.Contains(k.Subaccounts, id) {
		return nil, invalid
	}
	sub, err := st.SubaccountOf(c.UserContext(), k.AccountID, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, invalid
	case err != nil:
		return nil, err
	case sub.Status != store.AccountActive:
		return nil, invalid
	}
	acting := *k
	acting.AccountID, acting.Account = sub.ID, sub
	return &acting, nil
}

// hasKeyPrefix says secret looks like a key: full (sk_) or restricted
// (rk_), live or test.
func hasKeyPrefix(secret string) bool {
	for _, prefix := range []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"} {
		if strings.HasPrefix(secret, prefix) {
			return true
		}
	}
	return false
}

// ruled refuses, before anything is read or shown, a request for action
// (a row of operations.Rulebook) by a key or person who may not make it:
// 403 permission_denied naming the permission. The operation asks the
// same row again; a page shows no form of a change its person cannot make.
func ruled(action string) fiber.Handler {
	p, ok := operations.Rulebook[action]
	if !ok {
		panic("web: a route names " + action + ", which has no row in operations.Rulebook")
	}
	return needs(p)
}

// needs refuses a request whose key lacks p with 403 permission_denied,
// naming it: reads are checked here, by route; changes also by the
// operation that makes them.
func needs(p operations.Permission) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if k := request.APIKey(c); k != nil && k.Permissions == nil && k.MakerLimit() == "" {
			return c.Next() // a full key a command made: every permission, nothing to build
		}
		if err := operations.Allow(request.Actor(c), p); err != nil {
			return reply.Refusal(err)
		}
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
