package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
	"payments/views"
)

// SignupPage handles GET /signup.
func (d *Dashboard) SignupPage(c *fiber.Ctx) error {
	return reply.Page(c, http.StatusOK, views.Signup(views.SignupForm{CSRFToken: request.CSRFToken(c)}))
}

// Signup handles POST /signup: a new business's account is made, usable
// in test mode at once, and its owner is mailed the link that confirms the
// address and signs them in. The answer is the same whether or not the
// e-mail had a user already (then its owner is told someone tried): the
// sign-up page tells no one which e-mails are customers.
func (d *Dashboard) Signup(c *fiber.Ctx) error {
	in := operations.SignUp{BusinessName: c.FormValue("business_name"), Document: c.FormValue("document"),
		Name: c.FormValue("name"), Email: strings.TrimSpace(c.FormValue("email")), Password: c.FormValue("password"),
		Locale: views.LocaleOf(c.UserContext()).Lang}
	form := views.SignupForm{BusinessName: in.BusinessName, Document: in.Document, Name: in.Name, Email: in.Email,
		CSRFToken: request.CSRFToken(c), Errors: map[string]string{}}
	// Sign-ups count like sign-ins, per address and e-mail: each sends mail.
	allowed, err := d.AllowLogin(c.UserContext(), c.IP(), "signup:"+strings.ToLower(in.Email), "")
	if err != nil {
		return err
	}
	if !allowed {
		form.Error = tooManyTries(c)
		return reply.Page(c, http.StatusTooManyRequests, views.Signup(form))
	}
	_, _, err = d.Ops.SignUpBusiness(c.UserContext(), request.Visitor(c), in)
	var invalid operations.InvalidFields
	switch {
	case errors.As(err, &invalid):
		for field, problem := range invalid {
			form.Errors[field] = t(c, "signup.error_"+field)
			if errors.Is(problem, store.ErrWeakPassword) {
				form.Errors[field] = passwordRefusal(c, problem)
			}
		}
		return reply.Page(c, http.StatusUnprocessableEntity, views.Signup(form))
	case err != nil && !errors.Is(err, operations.ErrEmailTaken):
		return err
	}
	if err := d.setFlash(c, flashSignUpSent, in.Email); err != nil {
		return err
	}
	return c.Redirect("/signup/sent", http.StatusSeeOther)
}

// flashSignUpSent keeps, for the page after a sign-up, the e-mail its link
// went to.
const flashSignUpSent = "signup:sent"

// SignupSent handles GET /signup/sent: where a sign-up lands, saying where
// the link went and what it does.
func (d *Dashboard) SignupSent(c *fiber.Ctx) error {
	email, err := d.takeFlash(c, flashSignUpSent)
	if err != nil {
		return err
	}
	if email == "" {
		return c.Redirect("/signup", http.StatusSeeOther)
	}
	return reply.Page(c, http.StatusOK, views.Message(views.MessagePage{Title: t(c, "signup.sent_title"),
		Text: t(c, "signup.sent", "Email", email), LinkURL: "/login", LinkLabel: t(c, "signup.sent_login")}))
}

// VerifyEmail handles GET /verify-email?token=: the link of the
// verification mail, followed once. It proves the address, so it signs
// its person in (after their second factor, when they have one) and lands
// them on the dashboard, which says so.
func (d *Dashboard) VerifyEmail(c *fiber.Ctx) error {
	u, err := d.Ops.VerifyEmail(c.UserContext(), request.Visitor(c), c.Query("token"))
	if errors.Is(err, store.ErrTokenInvalid) {
		return reply.Page(c, http.StatusGone, views.Message(views.MessagePage{Title: t(c, "verify.title"),
			Text: t(c, "link.invalid"), Error: true, LinkURL: "/dashboard", LinkLabel: t(c, "verify.go")}))
	}
	if err != nil {
		return err
	}
	if u.HasSecondFactor() {
		return d.askSecondFactor(c, u)
	}
	if err := d.signIn(c, u, "", t(c, "verify.done"), false); err != nil {
		return err
	}
	return c.Redirect("/dashboard", http.StatusSeeOther)
}

// ResendConfirmation handles POST /dashboard/email/resend: the reminder's
// button mails the signed-in person their confirmation link again.
func (d *Dashboard) ResendConfirmation(c *fiber.Ctx) error {
	err := d.Ops.ResendVerification(c.UserContext(), request.Actor(c), request.CurrentUser(c).User)
	switch {
	case errors.Is(err, operations.ErrResentRecently):
		return d.noticeAndGo(c, t(c, "email.resent_recently"), d.pageBefore(c))
	case err != nil:
		return err
	}
	return d.noticeAndGo(c, t(c, "email.resent", "Email", request.CurrentUser(c).Email), d.pageBefore(c))
}

// ForgotPasswordPage handles GET /password/forgot.
func (d *Dashboard) ForgotPasswordPage(c *fiber.Ctx) error {
	return reply.Page(c, http.StatusOK, views.ForgotPassword(views.PasswordForm{CSRFToken: request.CSRFToken(c)}))
}

// ForgotPassword handles POST /password/forgot: the same answer whether
// or not the e-mail has a user (counted like sign-ins, per address and
// e-mail).
func (d *Dashboard) ForgotPassword(c *fiber.Ctx) error {
	email := strings.TrimSpace(c.FormValue("email"))
	form := views.PasswordForm{Email: email, CSRFToken: request.CSRFToken(c)}
	allowed, err := d.AllowLogin(c.UserContext(), c.IP(), "reset:"+strings.ToLower(email), "")
	if err != nil {
		return err
	}
	if !allowed {
		form.Error = tooManyTries(c)
		return reply.Page(c, http.StatusTooManyRequests, views.ForgotPassword(form))
	}
	if err := d.Ops.RequestPasswordReset(c.UserContext(), request.Visitor(c), email); err != nil {
		return err
	}
	form.Done = t(c, "forgot.sent", "Email", email)
	return reply.Page(c, http.StatusOK, views.ForgotPassword(form))
}

// ResetPasswordPage handles GET /password/reset?token=.
func (d *Dashboard) ResetPasswordPage(c *fiber.Ctx) error {
	token := c.Query("token")
	if _, err := d.Store.EmailTokenFor(c.UserContext(), store.TokenResetPassword, token); err != nil {
		if errors.Is(err, store.ErrTokenInvalid) {
			return d.invalidLink(c, "reset.title", "/password/forgot", t(c, "forgot.title"))
		}
		return err
	}
	return reply.Page(c, http.StatusOK, views.ResetPassword(views.PasswordForm{Token: token, CSRFToken: request.CSRFToken(c)}))
}

// ResetPassword handles POST /password/reset: the new password, every
// session of the person ended; this browser signs in anew.
func (d *Dashboard) ResetPassword(c *fiber.Ctx) error {
	token := c.FormValue("token")
	u, err := d.Ops.ResetPassword(c.UserContext(), request.Visitor(c), token, c.FormValue("password"))
	switch {
	case errors.Is(err, store.ErrTokenInvalid):
		return d.invalidLink(c, "reset.title", "/password/forgot", t(c, "forgot.title"))
	case errors.Is(err, store.ErrWeakPassword):
		return reply.Page(c, http.StatusUnprocessableEntity, views.ResetPassword(views.PasswordForm{Token: token,
			Error: passwordRefusal(c, err), CSRFToken: request.CSRFToken(c)}))
	case err != nil:
		return err
	}
	if u.HasSecondFactor() {
		// The link proves the e-mail, not the second factor.
		return d.askSecondFactor(c, u)
	}
	if err := d.signIn(c, u, "", t(c, "reset.done"), false); err != nil {
		return err
	}
	return c.Redirect("/dashboard", http.StatusSeeOther)
}

func (d *Dashboard) invalidLink(c *fiber.Ctx, titleID, next, nextLabel string) error {
	return reply.Page(c, http.StatusGone, views.Message(views.MessagePage{Title: t(c, titleID), Text: t(c, "link.invalid"),
		Error: true, LinkURL: next, LinkLabel: nextLabel}))
}
