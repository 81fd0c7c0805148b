package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/session"

	"payments/store"
	"payments/views"
)

// Session keys.
const (
	SessionUserID   = "user_id"
	SessionLivemode = "livemode"
)

// LoginLimit is how many sign-in attempts one address may make for one
// e-mail per LoginWindow.
const (
	LoginLimit  = 10
	LoginWindow = time.Minute
)

// Dashboard serves the signed-in pages and the login form.
type Dashboard struct {
	Store    *store.Store
	Sessions *session.Store
	Log      *slog.Logger
	// AllowLogin counts a sign-in attempt for key and reports whether it is
	// within LoginLimit.
	AllowLogin func(ctx context.Context, key string) (bool, error)
	Tester     WebhookTester
	BaseURL    string
	// AllowPrivateNetworks accepts http and private addresses in webhook URLs (dev/test only).
	AllowPrivateNetworks bool
}

// RequireOwner keeps changes, and the account's own pages such as API keys,
// to the account's owner: support staff read payments, never write.
func RequireOwner(c *fiber.Ctx) error {
	if u := currentUser(c); u == nil || u.User.Role != store.RoleOwner {
		return &Error{Status: http.StatusForbidden, Type: TypePermission, Code: "read_only",
			Message: "Your role can look, not change anything."}
	}
	return c.Next()
}

type dashUser struct {
	User     *store.User
	Livemode bool
}

const localDashUser localKey = 100

// SetDashUser records the signed-in user of a dashboard request.
func SetDashUser(c *fiber.Ctx, u *store.User, livemode bool) {
	c.Locals(localDashUser, &dashUser{User: u, Livemode: livemode})
}

func currentUser(c *fiber.Ctx) *dashUser {
	u, _ := c.Locals(localDashUser).(*dashUser)
	return u
}

// CSRFContextKey is where the CSRF middleware leaves the request's token.
const CSRFContextKey = "csrf"

func csrfToken(c *fiber.Ctx) string {
	t, _ := c.Locals(CSRFContextKey).(string)
	return t
}

func (d *Dashboard) nav(c *fiber.Ctx, active string) views.Nav {
	u := currentUser(c)
	return views.Nav{Email: u.User.Email, Role: u.User.Role, Livemode: u.Livemode, CSRFToken: csrfToken(c), Active: active}
}
