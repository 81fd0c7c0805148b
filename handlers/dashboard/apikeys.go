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

// APIKeys handles GET /dashboard/api-keys.
func (d *Dashboard) APIKeys(c *fiber.Ctx) error {
	keys, err := d.Store.APIKeys(c.UserContext(), dashScope(c).AccountID)
	if err != nil {
		return err
	}
	newKey, err := d.takeFlash(c, "reveal:api-key")
	if err != nil {
		return err
	}
	notice, err := d.takeNotice(c)
	if err != nil {
		return err
	}
	page := views.APIKeysPage{Nav: d.nav(c, "api-keys"), NewKey: newKey, Notice: notice}
	for _, k := range keys {
		row := views.APIKeyRow{ID: k.ID, Mode: k.Mode(), Redacted: k.Redacted, CreatedAt: when(c, k.CreatedAt)}
		if k.RevokedAt != nil {
			row.RevokedAt = when(c, *k.RevokedAt)
		}
		page.Keys = append(page.Keys, row)
	}
	return reply.Page(c, http.StatusOK, views.APIKeys(page))
}

// CreateAPIKey handles POST /dashboard/api-keys: the secret is shown on the
// next page view only.
func (d *Dashboard) CreateAPIKey(c *fiber.Ctx) error {
	mode := c.FormValue("mode")
	if mode != "test" && mode != "live" {
		return reply.InvalidParam("parameter_invalid", "mode", "mode must be test or live.")
	}
	_, secret, err := d.Ops.CreateAPIKey(c.UserContext(), request.Actor(c), dashScope(c).AccountID, mode == "live")
	if errors.Is(err, store.ErrAPIKeyLimit) {
		return d.noticeOrErr(c, "/dashboard/api-keys", reply.InvalidRequest(http.StatusConflict, "api_key_limit", "%s", err))
	}
	if err != nil {
		return err
	}
	if err := d.setFlash(c, "reveal:api-key", secret); err != nil {
		return err
	}
	return c.Redirect("/dashboard/api-keys", http.StatusSeeOther)
}

// RevokeAPIKey handles POST /dashboard/api-keys/{id}/revoke, confirmed:
// every integration using the key stops working.
func (d *Dashboard) RevokeAPIKey(c *fiber.Ctx) error {
	id := pathParam(c, "id")
	ctx := c.UserContext()
	accountID := dashScope(c).AccountID
	if !confirmed(c) {
		keys, err := d.Store.APIKeys(ctx, accountID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if k.ID == id && k.RevokedAt == nil {
				return d.confirm(c, "api-keys", views.Confirmation{Title: t(c, "keys.revoke_title"),
					Lines: []views.ConfirmLine{{Label: t(c, "keys.key"), Value: k.Redacted}, {Label: t(c, "keys.mode"), Value: t(c, "mode."+k.Mode())},
						{Label: t(c, "field.created"), Value: when(c, k.CreatedAt)}},
					Warning: t(c, "keys.revoke_warning"), Button: t(c, "keys.revoke"), CancelURL: "/dashboard/api-keys", Danger: true})
			}
		}
		return reply.NoSuch("API key", "id", id)
	}
	if _, err := d.Ops.RevokeAPIKey(ctx, request.Actor(c), accountID, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return reply.NoSuch("API key", "id", id)
		}
		return err
	}
	return d.noticeAndGo(c, t(c, "keys.revoked"), "/dashboard/api-keys")
}

// SwitchMode handles POST /dashboard/mode: the dashboard shows test or live
// data, then returns to the page it came from.
func (d *Dashboard) SwitchMode(c *fiber.Ctx) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Set(SessionLivemode, c.FormValue("mode") == "live")
	if err := sess.Save(); err != nil {
		return err
	}
	back := "/dashboard"
	// Only a path of this site is followed, never another origin.
	if ref := c.Get(fiber.HeaderReferer); ref != "" {
		if i := strings.Index(ref, "/dashboard/"); i >= 0 && strings.HasPrefix(ref, d.BaseURL) {
			back = ref[i:]
			if j := strings.IndexAny(back, "?#"); j >= 0 {
				back = back[:j]
			}
		}
	}
	return c.Redirect(back, http.StatusSeeOther)
}

// switchModeTo moves the session to live or test data and goes to, saying so.
func (d *Dashboard) switchModeTo(c *fiber.Ctx, live bool, to string) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Set(SessionLivemode, live)
	if err := sess.Save(); err != nil {
		return err
	}
	notice := t(c, "mode.followed_test")
	if live {
		notice = t(c, "mode.followed_live")
	}
	return d.noticeAndGo(c, notice, to)
}
