package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/session"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
	"payments/views"
)

// Team handles GET /dashboard/team.
func (d *Dashboard) Team(c *fiber.Ctx) error {
	form := views.InviteForm{Role: store.RoleDeveloper}
	kept, err := d.keptForm(c, "/dashboard/team")
	if err != nil {
		return err
	}
	if kept != nil { // back from proving their second factor: the invitation as they typed it
		form.Email, form.Role = kept["email"], kept["role"]
	}
	return d.teamPage(c, http.StatusOK, form)
}

func (d *Dashboard) teamPage(c *fiber.Ctx, status int, form views.InviteForm) error {
	ctx := c.UserContext()
	accountID := dashScope(c).AccountID
	members, err := d.Store.Members(ctx, accountID)
	if err != nil {
		return err
	}
	invitations, err := d.Store.PendingInvitations(ctx, accountID)
	if err != nil {
		return err
	}
	notice, err := d.takeNotice(c)
	if err != nil {
		return err
	}
	page := views.TeamPage{Nav: d.nav(c, "team"), Notice: notice, Roles: store.AccountRoles, Form: form,
		SelfID: request.CurrentUser(c).ID}
	for _, m := range members {
		page.Members = append(page.Members, views.MemberRow{UserID: m.UserID, Email: m.Email, Role: m.Role, Since: when(c, m.CreatedAt)})
	}
	for _, inv := range invitations {
		page.Invitations = append(page.Invitations, views.InvitationRow{ID: inv.ID, Email: inv.Email, Role: *inv.Role,
			Expires: when(c, inv.ExpiresAt)})
	}
	return reply.Page(c, status, views.Team(page))
}

// Invite handles POST /dashboard/team/invitations.
func (d *Dashboard) Invite(c *fiber.Ctx) error {
	form := views.InviteForm{Email: strings.TrimSpace(c.FormValue("email")), Role: c.FormValue("role")}
	_, err := d.Ops.InviteMember(c.UserContext(), request.Actor(c), dashScope(c).AccountID, form.Email, form.Role,
		views.LocaleOf(c.UserContext()).Lang)
	switch {
	case errors.Is(err, operations.ErrBadEmail):
		form.Error = t(c, "signup.error_email")
	case errors.Is(err, store.ErrUnknownRole):
		form.Error = t(c, "team.error_role")
	case errors.Is(err, operations.ErrAlreadyMember):
		form.Error = t(c, "team.error_member")
	case err != nil:
		return reply.Refusal(d.keepForStepUp(c, err, "/dashboard/team", map[string]string{"email": form.Email, "role": form.Role}))
	default:
		return d.noticeAndGo(c, t(c, "team.invited", "Email", form.Email), "/dashboard/team")
	}
	return d.teamPage(c, http.StatusUnprocessableEntity, form)
}

// RevokeInvitation handles POST /dashboard/team/invitations/{id}/revoke.
func (d *Dashboard) RevokeInvitation(c *fiber.Ctx) error {
	err := d.Ops.RevokeInvitation(c.UserContext(), request.Actor(c), dashScope(c).AccountID, pathParam(c, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("invitation", "id", pathParam(c, "id"))
	}
	if err != nil {
		return reply.Refusal(err)
	}
	return d.noticeAndGo(c, t(c, "team.invitation_revoked"), "/dashboard/team")
}

// SetMemberRole handles POST /dashboard/team/members/{id}/role.
func (d *Dashboard) SetMemberRole(c *fiber.Ctx) error {
	err := d.Ops.SetMemberRole(c.UserContext(), request.Actor(c), dashScope(c).AccountID, pathParam(c, "id"), c.FormValue("role"))
	return d.teamChanged(c, err, t(c, "team.role_changed"))
}

// RemoveMember handles POST /dashboard/team/members/{id}/remove, confirmed.
func (d *Dashboard) RemoveMember(c *fiber.Ctx) error {
	id := pathParam(c, "id")
	if !confirmed(c) {
		members, err := d.Store.Members(c.UserContext(), dashScope(c).AccountID)
		if err != nil {
			return err
		}
		for _, m := range members {
			if m.UserID == id {
				return d.confirm(c, "team", views.Confirmation{Title: t(c, "team.remove_title"),
					Lines:   []views.ConfirmLine{{Label: t(c, "field.email"), Value: m.Email}, {Label: t(c, "team.role"), Value: views.Label(c.UserContext(), "role", m.Role)}},
					Warning: t(c, "team.remove_warning"), Button: t(c, "team.remove"), CancelURL: "/dashboard/team", Danger: true})
			}
		}
		return reply.NoSuch("member", "id", id)
	}
	err := d.Ops.RemoveMember(c.UserContext(), request.Actor(c), dashScope(c).AccountID, id)
	return d.teamChanged(c, err, t(c, "team.removed"))
}

func (d *Dashboard) teamChanged(c *fiber.Ctx, err error, done string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return reply.NoSuch("member", "id", pathParam(c, "id"))
	case errors.Is(err, store.ErrLastOwner):
		return d.noticeOrErr(c, "/dashboard/team", reply.InvalidRequest(http.StatusConflict, "last_owner", "An account keeps at least one owner."))
	case errors.Is(err, store.ErrUnknownRole):
		return reply.InvalidParam("parameter_invalid", "role", "role must be one of %s.", strings.Join(store.AccountRoles, ", "))
	case err != nil:
		return reply.Refusal(err)
	}
	return d.noticeAndGo(c, done, "/dashboard/team")
}

// SwitchAccount handles POST /dashboard/account: the person acts on
// another account of theirs, in test mode.
func (d *Dashboard) SwitchAccount(c *fiber.Ctx) error {
	u := request.CurrentUser(c)
	target := c.FormValue("account")
	fresh, err := d.Store.UserInAccount(c.UserContext(), u.ID, target)
	if err != nil {
		return err
	}
	if fresh.Role == "" || fresh.Role == store.RoleSupport {
		return reply.NoSuch("account", "account", target)
	}
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Set(SessionAccountID, target)
	sess.Set(SessionLivemode, false)
	if err := sess.Save(); err != nil {
		return err
	}
	return c.Redirect("/dashboard", http.StatusSeeOther)
}

// InvitationPage handles GET /invitations/accept?token=: who invites to
// what, and how to accept.
func (d *Dashboard) InvitationPage(c *fiber.Ctx) error {
	form, err := d.invitationForm(c, c.Query("token"))
	if errors.Is(err, store.ErrTokenInvalid) {
		return d.invalidLink(c, "invite.title", "/login", t(c, "login.submit"))
	}
	if err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.AcceptInvitation(form))
}

func (d *Dashboard) invitationForm(c *fiber.Ctx, token string) (views.InvitationForm, error) {
	ctx := c.UserContext()
	inv, err := d.Store.EmailTokenFor(ctx, store.TokenInvitation, token)
	if err != nil {
		return views.InvitationForm{}, err
	}
	form := views.InvitationForm{Token: token, Account: inv.AccountName, Inviter: inv.InviterName, Role: *inv.Role,
		Email: inv.Email, CSRFToken: request.CSRFToken(c)}
	if u, _ := d.sessionUser(c); u != nil {
		form.SignedInAs = u.Email
	} else if _, err := d.Store.UserByEmail(ctx, inv.Email); err == nil {
		form.HasUser = true
	}
	return form, nil
}

// AcceptInvitation handles POST /invitations/accept: the signed-in person
// joins; one whose e-mail has a user signs in with their password here;
// anyone else makes their user (name, password). They land in the
// account they joined.
func (d *Dashboard) AcceptInvitation(c *fiber.Ctx) error {
	ctx := c.UserContext()
	token := c.FormValue("token")
	form, err := d.invitationForm(c, token)
	if errors.Is(err, store.ErrTokenInvalid) {
		return d.invalidLink(c, "invite.title", "/login", t(c, "login.submit"))
	}
	if err != nil {
		return err
	}
	j := operations.Joining{Password: c.FormValue("password"), Name: c.FormValue("name"), Locale: views.LocaleOf(ctx).Lang}
	if u, _ := d.sessionUser(c); u != nil {
		j.User = u
	} else if form.HasUser {
		u, err := d.Store.UserByEmail(ctx, form.Email)
		if err != nil {
			return err
		}
		if u.HasSecondFactor() {
			// Their second factor is asked at sign-in: they sign in, then
			// open the link again.
			form.Error = t(c, "invite.sign_in_then_open")
			return reply.Page(c, http.StatusUnauthorized, views.AcceptInvitation(form))
		}
		// A password tried here counts like a sign-in's.
		allowed, err := d.AllowLogin(ctx, c.IP(), strings.ToLower(form.Email), "")
		if err != nil {
			return err
		}
		if !allowed {
			form.Error = tooManyTries(c)
			return reply.Page(c, http.StatusTooManyRequests, views.AcceptInvitation(form))
		}
		if ok, err := store.VerifyPassword(u.PasswordHash, j.Password); err != nil || !ok {
			form.Error = t(c, "login.wrong")
			return reply.Page(c, http.StatusUnauthorized, views.AcceptInvitation(form))
		}
		j.User = u
	}
	u, accountID, err := d.Ops.AcceptInvitation(ctx, request.Visitor(c), token, j)
	switch {
	case errors.Is(err, store.ErrTokenInvalid):
		return d.invalidLink(c, "invite.title", "/login", t(c, "login.submit"))
	case errors.Is(err, operations.ErrInvitationForAnother):
		form.Error = t(c, "invite.for_another", "Email", form.Email)
		return reply.Page(c, http.StatusForbidden, views.AcceptInvitation(form))
	case errors.Is(err, store.ErrConflict):
		form.Error = t(c, "team.error_member")
		return reply.Page(c, http.StatusConflict, views.AcceptInvitation(form))
	case errors.Is(err, store.ErrWeakPassword):
		form.Error = passwordRefusal(c, err)
		return reply.Page(c, http.StatusUnprocessableEntity, views.AcceptInvitation(form))
	case err != nil:
		return err
	}
	fresh, err := d.Store.UserInAccount(ctx, u.ID, accountID)
	if err != nil {
		return err
	}
	if err := d.signIn(c, fresh, accountID, t(c, "invite.joined", "Account", form.Account), false); err != nil {
		return err
	}
	return c.Redirect("/dashboard", http.StatusSeeOther)
}

// sessionUser is the person this browser is signed in as, if any (on the
// pages before sign-in, which do not require it).
func (d *Dashboard) sessionUser(c *fiber.Ctx) (*store.User, error) {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return nil, err
	}
	return d.userOfSession(c, sess, SessionUserID)
}

// userOfSession is the user whose id sess keeps under key, while the
// session is of their current epoch (nil, nil: none, or no longer).
func (d *Dashboard) userOfSession(c *fiber.Ctx, sess *session.Session, key string) (*store.User, error) {
	id, _ := sess.Get(key).(string)
	if id == "" {
		return nil, nil
	}
	u, err := d.Store.UserByID(c.UserContext(), id)
	if err != nil {
		return nil, err
	}
	if epoch, _ := sess.Get(SessionEpoch).(int); epoch != u.SessionEpoch {
		return nil, nil
	}
	return u, nil
}
