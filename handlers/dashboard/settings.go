package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/pix"
	"payments/store"
	"payments/views"
)

func (d *Dashboard) settingsPage(c *fiber.Ctx) (views.SettingsPage, error) {
	u := request.CurrentUser(c).User
	page := views.SettingsPage{Nav: d.nav(c, "settings"), Locale: u.Locale, TimeZone: u.TimeZone}
	if u.AccountID == nil {
		return page, nil
	}
	acct, err := d.Store.Account(c.UserContext(), *u.AccountID)
	if err != nil {
		return views.SettingsPage{}, err
	}
	page.AccountID, page.Name, page.Email, page.TimeZone = acct.ID, acct.Name, acct.Email, acct.TimeZone
	page.FeePercent = fmt.Sprintf("%d,%02d%%", acct.FeeBPS/100, acct.FeeBPS%100)
	page.FeeFixed = pix.FormatBRL(int64(acct.FeeFixedCents))
	return page, nil
}

// Settings handles GET /dashboard/settings: the account (owners) and the
// user's preferences (everyone).
func (d *Dashboard) Settings(c *fiber.Ctx) error {
	page, err := d.settingsPage(c)
	if err != nil {
		return err
	}
	if page.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.Settings(page))
}

// SavePreferences handles POST /dashboard/settings/preferences: the
// user's language and, for owners, the account's time zone.
func (d *Dashboard) SavePreferences(c *fiber.Ctx) error {
	u := request.CurrentUser(c).User
	ctx := c.UserContext()
	zone := c.FormValue("time_zone")
	if zone != "" && !slices.Contains(views.TimeZones, zone) {
		return d.noticeOrErr(c, "/dashboard/settings", reply.InvalidParam("time_zone_invalid", "time_zone", "unknown time zone"))
	}
	if err := d.Ops.SetPreferences(ctx, request.Actor(c), u, c.FormValue("locale"), zone); err != nil {
		switch {
		case errors.Is(err, store.ErrUnknownLocale):
			return d.noticeOrErr(c, "/dashboard/settings", reply.InvalidParam("locale_invalid", "locale", "unknown language"))
		case errors.Is(err, store.ErrUnknownTimeZone):
			return d.noticeOrErr(c, "/dashboard/settings", reply.InvalidParam("time_zone_invalid", "time_zone", "unknown time zone"))
		}
		return err
	}
	// The notice speaks the language just chosen.
	lang := views.NewLocale(c.FormValue("locale"), "")
	return d.noticeAndGo(c, lang.T("settings.saved"), "/dashboard/settings")
}

// ChangePassword handles POST /dashboard/settings/password.
func (d *Dashboard) ChangePassword(c *fiber.Ctx) error {
	page, err := d.settingsPage(c)
	if err != nil {
		return err
	}
	u := request.CurrentUser(c).User
	ok, err := store.VerifyPassword(u.PasswordHash, c.FormValue("current"))
	if err != nil {
		return err
	}
	if !ok {
		page.Error = t(c, "settings.wrong_password")
		return reply.Page(c, http.StatusUnprocessableEntity, views.Settings(page))
	}
	if err := d.Ops.ChangePassword(c.UserContext(), request.Actor(c), u, c.FormValue("new")); err != nil {
		if errors.Is(err, store.ErrWeakPassword) {
			page.Error = passwordRefusal(c, err)
			return reply.Page(c, http.StatusUnprocessableEntity, views.Settings(page))
		}
		return err
	}
	// Every other session ends (their epoch is behind); this one goes on
	// under a new id and the new epoch.
	fresh, err := d.Store.UserByID(c.UserContext(), u.ID)
	if err != nil {
		return err
	}
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	if err := sess.Regenerate(); err != nil {
		return err
	}
	sid, err := d.Ops.OpenSession(c.UserContext(), request.Person(c, fresh), fresh)
	if err != nil {
		return err
	}
	sess.Set(SessionID, sid)
	sess.Set(SessionUserID, fresh.ID)
	sess.Set(SessionEpoch, fresh.SessionEpoch)
	// The notice goes in this session: a second Get would read the old id
	// from the request's cookie and answer with an empty session.
	sess.Set(flashNotice, t(c, "settings.password_changed"))
	if err := sess.Save(); err != nil {
		return err
	}
	return c.Redirect("/dashboard/settings", http.StatusSeeOther)
}

// passwordRefusal says in the person's words why a password was refused
// (store.CheckPassword).
func passwordRefusal(c *fiber.Ctx, err error) string {
	switch {
	case errors.Is(err, store.ErrPasswordCommon):
		return t(c, "password.common")
	case errors.Is(err, store.ErrPasswordPersonal):
		return t(c, "password.personal")
	case errors.Is(err, store.ErrPasswordTooLong):
		return t(c, "password.too_long", "Max", store.MaxPasswordLength)
	}
	return t(c, "settings.weak_password", "Min", store.MinPasswordLength)
}
