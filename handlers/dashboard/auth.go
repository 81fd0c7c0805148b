package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
	"payments/views"
)

// LoginPage handles GET /login.
func (d *Dashboard) LoginPage(c *fiber.Ctx) error {
	return reply.Page(c, http.StatusOK, views.Login(views.LoginForm{CSRFToken: request.CSRFToken(c), Passkeys: d.WebAuthn != nil}))
}

// Login handles POST /login.
func (d *Dashboard) Login(c *fiber.Ctx) error {
	email := strings.TrimSpace(c.FormValue("email"))
	password := c.FormValue("password")
	form := views.LoginForm{Email: email, CSRFToken: request.CSRFToken(c), Passkeys: d.WebAuthn != nil}
	ctx := c.UserContext()

	device := d.Devices.Trusted(c, strings.ToLower(email))
	allowed, err := d.AllowLogin(ctx, c.IP(), strings.ToLower(email), device)
	if err != nil {
		return err
	}
	if !allowed {
		if err := d.Ops.NotifySignInFailures(ctx, request.Visitor(c), email); err != nil {
			return err
		}
		form.Error = tooManyTries(c)
		return reply.Page(c, http.StatusTooManyRequests, views.Login(form))
	}
	u, err := d.Store.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		// Spend the same time as a real check (one argon2id run against a
		// decoy hash), so timing does not reveal accounts.
		_, _ = store.VerifyPassword(d.Store.DecoyPasswordHash(), password)
		form.Error = t(c, "login.wrong")
		return reply.Page(c, http.StatusUnauthorized, views.Login(form))
	}
	if err != nil {
		return err
	}
	ok, err := store.VerifyPassword(u.PasswordHash, password)
	if err != nil {
		return err
	}
	if !ok {
		form.Error = t(c, "login.wrong")
		return reply.Page(c, http.StatusUnauthorized, views.Login(form))
	}
	if u.HasSecondFactor() {
		return d.askSecondFactor(c, u)
	}
	return d.finishSignIn(c, u, false)
}

// tooManyTries is the refusal of a throttled try (a sign-in, a code, a
// sign-up, a reset request): the words for the page, and when to try again.
func tooManyTries(c *fiber.Ctx) string {
	c.Set(fiber.HeaderRetryAfter, "60")
	return t(c, "login.too_many")
}

// signIn opens a new session for u acting on accountID ("": the account
// they sign in to first), with a notice for the next page (""; none) and,
// when secondFactor, their second factor proved now: the new session is
// the request's from here on, so what it keeps is set now.
func (d *Dashboard) signIn(c *fiber.Ctx, u *store.User, accountID, notice string, secondFactor bool) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	// A new session id at sign-in defeats session fixation.
	if err := sess.Regenerate(); err != nil {
		return err
	}
	sid, err := d.Ops.OpenSession(c.UserContext(), request.Person(c, u), u)
	if err != nil {
		return err
	}
	sess.Set(SessionID, sid)
	sess.Set(SessionUserID, u.ID)
	sess.Set(SessionLivemode, false)
	sess.Set(SessionEpoch, u.SessionEpoch)
	sess.Set(SessionAccountID, accountID)
	if notice != "" {
		sess.Set(flashNotice, notice)
	}
	if secondFactor {
		sess.Set(SessionSecondFactorAt, d.Store.Now().Unix())
	}
	return sess.Save()
}

// Logout handles POST /logout.
func (d *Dashboard) Logout(c *fiber.Ctx) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	// The session ends where the person's sessions are kept too: their
	// security page no longer lists it (one ended already is no error).
	userID, _ := sess.Get(SessionUserID).(string)
	sid, _ := sess.Get(SessionID).(string)
	if userID != "" && sid != "" {
		u, err := d.Store.UserByID(c.UserContext(), userID)
		if err == nil {
			err = d.Ops.EndSession(c.UserContext(), request.Person(c, u), u, sid)
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	if err := sess.Destroy(); err != nil {
		return err
	}
	return c.Redirect("/login", http.StatusSeeOther)
}
