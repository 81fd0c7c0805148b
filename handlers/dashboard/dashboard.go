// Package dashboard serves the signed-in pages of account owners and
// support staff, and the login form: one file per page group.
package dashboard

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/session"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
	"payments/views"
)

// Session keys.
const (
	SessionUserID   = "user_id"
	SessionLivemode = "livemode"
	// SessionEpoch is the user's session epoch when the session opened.
	SessionEpoch = "epoch"
	// SessionAccountID is the account the person acts on ("": the one
	// they sign in to first).
	SessionAccountID = "account_id"
	// SessionSecondFactorAt is when (unix seconds) the person last proved
	// their second factor in this session.
	SessionSecondFactorAt = "second_factor_at"
	// SessionID is the session's row in user_sessions (what the person's
	// security page lists and ends).
	SessionID = "sid"
)

// Sign-in attempts allowed per LoginWindow: for one e-mail from browsers
// without its device cookie (from any address), from one address (for any
// e-mails), and from one device that signed in to the e-mail before
// (DeviceCookies), which counts apart. They are counted where the API's
// rate limits are: in Redis when it is configured, so every instance
// shares them.
const (
	LoginLimit       = 10
	LoginIPLimit     = 30
	LoginDeviceLimit = 10
	LoginWindow      = time.Minute
)

// Dashboard serves the signed-in pages and the login form.
type Dashboard struct {
	Store *store.Store
	// Ops makes every change a person asks for.
	Ops      *operations.Operations
	Sessions *session.Store
	Log      *slog.Logger
	// AllowLogin counts a sign-in attempt for email and reports whether it
	// is within its limits: on its own counter when it comes from device
	// (a trusted device's id), else on the e-mail's and the address ip's.
	AllowLogin func(ctx context.Context, ip, email, device string) (bool, error)
	// Devices makes and checks the device cookies of sign-in.
	Devices DeviceCookies
	BaseURL string
	// WebAuthn runs the passkey ceremonies for this site (its host and
	// origin, from BASE_URL).
	WebAuthn *webauthn.WebAuthn
	// SessionLimits end idle and old sessions (the security page lists
	// those still on).
	SessionLimits store.SessionLimits
	// ChargeWait bounds how long a live charge made here waits for the PSP
	// to register it before the page says it is still registering (3 s
	// when zero).
	ChargeWait time.Duration
}

func (d *Dashboard) chargeWait() time.Duration {
	if d.ChargeWait > 0 {
		return d.ChargeWait
	}
	return 3 * time.Second
}

// RequireMember keeps an account's pages to its members: support staff
// read payments through their own console. What each member may change is
// the operations' to say (operations.Allow); pages only hide it (may).
func RequireMember(c *fiber.Ctx) error {
	if u := request.CurrentUser(c); u == nil || u.User.Role == store.RoleSupport || u.User.AccountID == nil {
		return &reply.Error{Status: http.StatusForbidden, Type: reply.TypePermission, Code: "read_only",
			Message: "Your role can look, not change anything."}
	}
	return c.Next()
}

// may says whether the signed-in person's role changes resource, for a
// page to offer the change or hide it.
func may(c *fiber.Ctx, resource string) bool {
	u := request.CurrentUser(c)
	return u != nil && operations.RoleMay(u.Role, operations.Write(resource))
}

// pathParam is the path parameter name, percent-decoded; one that is not
// a valid escape stays as sent, and names nothing.
func pathParam(c *fiber.Ctx, name string) string {
	v, _ := request.Param(c, name)
	return v
}

func (d *Dashboard) nav(c *fiber.Ctx, active string) views.Nav {
	u := request.CurrentUser(c)
	n := views.Nav{Email: u.User.Email, Role: u.User.Role, Livemode: u.Livemode, CSRFToken: request.CSRFToken(c), Active: active,
		Unconfirmed: u.EmailVerifiedAt == nil && u.Role != store.RoleSupport}
	for _, resource := range []string{operations.Payments, operations.Refunds, operations.Withdrawals, operations.Disputes,
		operations.Webhooks, operations.APIKeys, operations.Team, operations.Settings} {
		if may(c, resource) {
			n.Writes = append(n.Writes, resource)
		}
	}
	if u.Role != store.RoleSupport {
		// Which accounts they may switch to (a read error leaves the
		// switcher out, not the page).
		if mine, err := d.Store.MembershipsOf(c.UserContext(), u.ID); err == nil && len(mine) > 1 {
			for _, m := range mine {
				n.Accounts = append(n.Accounts, views.AccountChoice{ID: m.AccountID, Name: m.AccountName,
					Current: u.AccountID != nil && *u.AccountID == m.AccountID})
			}
		}
	}
	if u.AccountID != nil && u.Role != store.RoleSupport {
		// A subaccount's page says whose it is, and leads back to the
		// platform for a platform's member (a read error leaves it out).
		// The request's read of the person (UserInAccount) says whether it
		// is one: a page of an account of its own reads nothing more.
		n.Subaccount = u.Subaccount
		if u.PlatformMember && u.PlatformID != nil {
			if p, err := d.Store.Account(c.UserContext(), *u.PlatformID); err == nil {
				n.PlatformID, n.PlatformName = p.ID, p.Name
			}
		}
	}
	if c.Method() == fiber.MethodGet {
		// A page reloads its content from its own address; a page that
		// answers a POST (a form with its errors) has none to reload.
		n.Self = c.OriginalURL()
		// What the last action said shows where the person lands, whichever
		// page that is (a page that shows it itself took it already).
		if notice, err := d.takeNotice(c); err == nil {
			n.Notice = notice
		}
	}
	return n
}

// t is the message id in the request's language (see views.T).
func t(c *fiber.Ctx, id string, kv ...any) string { return views.T(c.UserContext(), id, kv...) }

// confirmed says the form was posted from its confirmation page.
func confirmed(c *fiber.Ctx) bool { return c.FormValue("confirmed") == "1" }

// confirm answers a consequential action's first post with its
// confirmation page (views.Confirm); the page posts again with confirmed=1.
func (d *Dashboard) confirm(c *fiber.Ctx, active string, p views.Confirmation) error {
	p.Nav = d.nav(c, active)
	p.Action = c.Path()
	return reply.Page(c, http.StatusOK, views.Confirm(p))
}

// when is t as the dashboard shows instants: dd/mm/aaaa HH:mm in the
// account's time zone.
func when(c *fiber.Ctx, at time.Time) string { return views.Time(c.UserContext(), at) }

// localInput is the layout of a datetime-local field.
const localInput = "2006-01-02T15:04"

// localTime reads a datetime-local value in the account's time zone.
func localTime(c *fiber.Ctx, value string) (time.Time, error) {
	return time.ParseInLocation(localInput, value, views.LocaleOf(c.UserContext()).TZ)
}
