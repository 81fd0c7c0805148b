package dashboard

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/store"
	"payments/views"
	"payments/web/reply"
	"payments/web/request"
)

func (d *Dashboard) settingsPage(c *fiber.Ctx) (views.SettingsPage, error) {
	acct, err := d.Store.Account(c.UserContext(), dashScope(c).AccountID)
	if err != nil {
		return views.SettingsPage{}, err
	}
	pricing := fmt.Sprintf("%d.%02d%% per payment", acct.FeeBPS/100, acct.FeeBPS%100)
	if acct.FeeFixedCents > 0 {
		pricing += " + " + pix.FormatBRL(int64(acct.FeeFixedCents))
	}
	return views.SettingsPage{Nav: d.nav(c, "settings"), AccountID: acct.ID, Name: acct.Name, Email: acct.Email, Pricing: pricing}, nil
}

// Settings handles GET /dashboard/settings.
func (d *Dashboard) Settings(c *fiber.Ctx) error {
	page, err := d.settingsPage(c)
	if err != nil {
		return err
	}
	page.Saved = c.Query("saved") == "1"
	return reply.Page(c, http.StatusOK, views.Settings(page))
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
		page.Error = "The current password is incorrect."
		return reply.Page(c, http.StatusUnprocessableEntity, views.Settings(page))
	}
	if err := d.Store.SetPassword(c.UserContext(), u.Email, c.FormValue("new")); err != nil {
		if errors.Is(err, store.ErrWeakPassword) {
			page.Error = fmt.Sprintf("The new password needs at least %d characters.", store.MinPasswordLength)
			return reply.Page(c, http.StatusUnprocessableEntity, views.Settings(page))
		}
		return err
	}
	return c.Redirect("/dashboard/settings?saved=1", http.StatusSeeOther)
}
