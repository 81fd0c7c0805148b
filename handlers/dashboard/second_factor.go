package dashboard

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image/png"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/pquerna/otp"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/internal/useragent"
	"payments/operations"
	"payments/store"
	"payments/views"
)

// Session keys of the second factor: the app being enrolled (its otpauth
// URL, until a code confirms it), and a sign-in waiting for its second
// factor (the user, their epoch, since when).
const (
	sessionTOTPPending = "totp_pending"
	sessionPendingUser = "pending_user"
	sessionPendingAt   = "pending_at"
)

// pendingSignInLifetime bounds how long a password stays good for the
// second step of a sign-in.
const pendingSignInLifetime = 5 * time.Minute

// Security handles GET /dashboard/security.
func (d *Dashboard) Security(c *fiber.Ctx) error {
	return d.securityPage(c, http.StatusOK, nil, "")
}

func (d *Dashboard) securityPage(c *fiber.Ctx, status int, recovery []string, problem string) error {
	u := request.CurrentUser(c)
	page := views.SecurityPage{Nav: d.nav(c, "security"), TOTPOn: u.TOTPEnabledAt != nil, RecoveryCodes: recovery, Error: problem,
		PasskeysOn: d.WebAuthn != nil}
	var err error
	if page.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	if page.TOTPOn {
		if page.RecoveryLeft, err = d.Store.RecoveryCodesLeft(c.UserContext(), u.ID); err != nil {
			return err
		}
	} else if key, err := d.pendingTOTP(c); err != nil {
		return err
	} else if key != nil {
		img, err := key.Image(200, 200)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return err
		}
		page.Enrolling = &views.TOTPEnrollment{QRDataURL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()),
			Secret: key.Secret()}
	}
	keys, err := d.Store.Passkeys(c.UserContext(), u.ID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		row := views.PasskeyRow{ID: base64.RawURLEncoding.EncodeToString(k.ID), Name: k.Name, Created: when(c, k.CreatedAt)}
		if k.LastUsedAt != nil {
			row.LastUsed = when(c, *k.LastUsedAt)
		}
		page.Passkeys = append(page.Passkeys, row)
	}
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	current, _ := sess.Get(SessionID).(string)
	sessions, err := d.Store.UserSessions(c.UserContext(), u.ID, d.SessionLimits)
	if err != nil {
		return err
	}
	for _, s := range sessions {
		row := views.SessionRow{ID: s.ID, Device: useragent.Label(s.UserAgent), LastSeen: when(c, s.LastSeenAt), Since: when(c, s.CreatedAt),
			Current: s.ID == current}
		if s.IP != nil {
			row.IP = *s.IP
		}
		page.Sessions = append(page.Sessions, row)
	}
	// The secret and the codes are on this page once: never cached.
	c.Set(fiber.HeaderCacheControl, "no-store")
	return reply.Page(c, status, views.Security(page))
}

func (d *Dashboard) pendingTOTP(c *fiber.Ctx) (*otp.Key, error) {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return nil, err
	}
	raw, _ := sess.Get(sessionTOTPPending).(string)
	if raw == "" {
		return nil, nil
	}
	return otp.NewKeyFromURL(raw)
}

// StartTOTP handles POST /dashboard/security/totp/start: a new secret,
// kept in the session until a code from the app confirms it.
func (d *Dashboard) StartTOTP(c *fiber.Ctx) error {
	key, err := operations.NewTOTPKey("Pagamentos Pix", request.CurrentUser(c).User)
	if err != nil {
		return err
	}
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Set(sessionTOTPPending, key.URL())
	if err := sess.Save(); err != nil {
		return err
	}
	return c.Redirect("/dashboard/security", http.StatusSeeOther)
}

// ConfirmTOTP handles POST /dashboard/security/totp: a code from the app
// turns it on; the recovery codes are shown this once.
func (d *Dashboard) ConfirmTOTP(c *fiber.Ctx) error {
	key, err := d.pendingTOTP(c)
	if err != nil {
		return err
	}
	if key == nil {
		return c.Redirect("/dashboard/security", http.StatusSeeOther)
	}
	u := request.CurrentUser(c)
	codes, err := d.Ops.EnrollTOTP(c.UserContext(), request.Actor(c), u.User, key.Secret(), strings.TrimSpace(c.FormValue("code")))
	if errors.Is(err, operations.ErrBadCode) {
		return d.securityPage(c, http.StatusUnprocessableEntity, nil, t(c, "verify2fa.bad_code"))
	}
	if err != nil {
		return err
	}
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Delete(sessionTOTPPending)
	// Typing the code proved the factor just now.
	sess.Set(SessionSecondFactorAt, d.Store.Now().Unix())
	if err := sess.Save(); err != nil {
		return err
	}
	now := d.Store.Now()
	u.TOTPEnabledAt = &now
	return d.securityPage(c, http.StatusOK, codes, "")
}

// DisableTOTP handles POST /dashboard/security/totp/disable (step-up).
func (d *Dashboard) DisableTOTP(c *fiber.Ctx) error {
	if err := d.Ops.DisableTOTP(c.UserContext(), request.Actor(c), request.CurrentUser(c).User); err != nil {
		return reply.Refusal(err)
	}
	return d.noticeAndGo(c, t(c, "security.totp_disabled"), "/dashboard/security")
}

// StepUpPage handles GET /dashboard/verify?next=: a code before a change
// that wants a fresh second factor.
func (d *Dashboard) StepUpPage(c *fiber.Ctx) error {
	nav := d.nav(c, "")
	page := d.verifyPage(c, request.CurrentUser(c).User, "/dashboard/verify")
	page.Next, page.Nav = localNext(c.Query("next")), &nav
	return reply.Page(c, http.StatusOK, views.Verify(page))
}

// StepUp handles POST /dashboard/verify: the code proves the factor for
// StepUpWindow; the person goes back to where they were.
func (d *Dashboard) StepUp(c *fiber.Ctx) error {
	u := request.CurrentUser(c)
	next := localNext(c.FormValue("next"))
	if err := d.verifyCode(c, u.User); err != nil {
		nav := d.nav(c, "")
		page := d.verifyPage(c, u.User, "/dashboard/verify")
		page.Next, page.Nav = next, &nav
		return d.verifyRefused(c, err, page)
	}
	if err := d.steppedUp(c); err != nil {
		return err
	}
	return c.Redirect(next, http.StatusSeeOther)
}

// steppedUp records in the session that its person proved their second
// factor now, and tells the next page.
func (d *Dashboard) steppedUp(c *fiber.Ctx) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Set(SessionSecondFactorAt, d.Store.Now().Unix())
	sess.Set(flashNotice, t(c, "verify2fa.done"))
	return sess.Save()
}

// verifyCode checks a code of u's, counted per person like sign-ins.
func (d *Dashboard) verifyCode(c *fiber.Ctx, u *store.User) error {
	allowed, err := d.AllowLogin(c.UserContext(), c.IP(), "2fa:"+u.ID, "")
	if err != nil {
		return err
	}
	if !allowed {
		return errTooManyCodes
	}
	who := request.Person(c, u)
	_, err = d.Ops.VerifySecondFactor(c.UserContext(), who, u, c.FormValue("code"))
	return err
}

var errTooManyCodes = errors.New("dashboard: too many codes tried")

func (d *Dashboard) verifyRefused(c *fiber.Ctx, err error, page views.VerifyPage) error {
	switch {
	case errors.Is(err, operations.ErrBadCode):
		page.Error = t(c, "verify2fa.bad_code")
		return reply.Page(c, http.StatusUnauthorized, views.Verify(page))
	case errors.Is(err, errTooManyCodes):
		page.Error = tooManyTries(c)
		return reply.Page(c, http.StatusTooManyRequests, views.Verify(page))
	}
	return err
}

// localNext keeps a "next" address to the dashboard's own pages.
func localNext(next string) string {
	if !strings.HasPrefix(next, "/dashboard") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/dashboard"
	}
	return next
}

// askSecondFactor keeps a sign-in whose password was right waiting for its
// second factor: the session knows who, not yet signed in.
func (d *Dashboard) askSecondFactor(c *fiber.Ctx, u *store.User) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	if err := sess.Regenerate(); err != nil {
		return err
	}
	sess.Set(sessionPendingUser, u.ID)
	sess.Set(SessionEpoch, u.SessionEpoch)
	sess.Set(sessionPendingAt, d.Store.Now().Unix())
	if err := sess.Save(); err != nil {
		return err
	}
	return c.Redirect("/login/verify", http.StatusSeeOther)
}

// pendingSignIn is the user whose sign-in waits for its second factor.
func (d *Dashboard) pendingSignIn(c *fiber.Ctx) (*store.User, error) {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return nil, err
	}
	if at, _ := sess.Get(sessionPendingAt).(int64); d.Store.Now().Sub(time.Unix(at, 0)) > pendingSignInLifetime {
		return nil, nil
	}
	u, err := d.userOfSession(c, sess, sessionPendingUser)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return u, err
}

// LoginVerifyPage handles GET /login/verify.
func (d *Dashboard) LoginVerifyPage(c *fiber.Ctx) error {
	u, err := d.pendingSignIn(c)
	if err != nil || u == nil {
		if err == nil {
			return c.Redirect("/login", http.StatusSeeOther)
		}
		return err
	}
	return reply.Page(c, http.StatusOK, views.Verify(d.verifyPage(c, u, "/login/verify")))
}

// LoginVerify handles POST /login/verify: the second step of a sign-in.
func (d *Dashboard) LoginVerify(c *fiber.Ctx) error {
	u, err := d.pendingSignIn(c)
	if err != nil {
		return err
	}
	if u == nil {
		return c.Redirect("/login", http.StatusSeeOther)
	}
	if err := d.verifyCode(c, u); err != nil {
		return d.verifyRefused(c, err, d.verifyPage(c, u, "/login/verify"))
	}
	return d.finishSignIn(c, u, true)
}

// finishSignIn signs u in (their second factor proved now, when
// secondFactor), records it and tells them of a new device.
func (d *Dashboard) finishSignIn(c *fiber.Ctx, u *store.User, secondFactor bool) error {
	email := strings.ToLower(u.Email)
	device := d.Devices.Trusted(c, email)
	who := request.Person(c, u)
	if err := d.Ops.RecordSignIn(c.UserContext(), who, u, device == ""); err != nil {
		return err
	}
	if err := d.signIn(c, u, "", "", secondFactor); err != nil {
		return err
	}
	if err := d.Devices.Issue(c, email); err != nil {
		return err
	}
	return c.Redirect("/dashboard", http.StatusSeeOther)
}

// EndSession handles POST /dashboard/security/sessions/{id}/end.
func (d *Dashboard) EndSession(c *fiber.Ctx) error {
	err := d.Ops.EndSession(c.UserContext(), request.Actor(c), request.CurrentUser(c).User, pathParam(c, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("session", "id", pathParam(c, "id"))
	}
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "security.session_ended"), "/dashboard/security")
}

// EndOtherSessions handles POST /dashboard/security/sessions/end-others.
func (d *Dashboard) EndOtherSessions(c *fiber.Ctx) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	current, _ := sess.Get(SessionID).(string)
	n, err := d.Ops.EndOtherSessions(c.UserContext(), request.Actor(c), request.CurrentUser(c).User, current)
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "security.others_ended", "Count", n), "/dashboard/security")
}

// verifyPage asks u for the second factors they have, posting to action:
// a passkey first when they hold one (and the site offers passkeys), the
// code box when they enrolled an app (or have nothing else to offer).
func (d *Dashboard) verifyPage(c *fiber.Ctx, u *store.User, action string) views.VerifyPage {
	passkey := d.WebAuthn != nil && u.Passkeys > 0
	return views.VerifyPage{Action: action, CSRFToken: request.CSRFToken(c), Passkey: passkey, Code: u.TOTPEnabledAt != nil || !passkey}
}
