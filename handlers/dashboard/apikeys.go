package dashboard

import (
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"unicode"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
	"payments/views"
)

// APIKeys handles GET /dashboard/api-keys.
func (d *Dashboard) APIKeys(c *fiber.Ctx) error {
	form := views.APIKeyForm{}
	kept, err := d.keptForm(c, "/dashboard/api-keys")
	if err != nil {
		return err
	}
	switch {
	case kept == nil:
	case kept["restricted"] == "1": // back from proving their second factor
		form = views.APIKeyForm{Restricted: true, Name: kept["name"], AllowedIPs: kept["allowed_ips"], Levels: map[string]string{},
			Subaccounts: strings.FieldsFunc(kept["subaccounts"], isListSeparator)}
		for _, r := range operations.KeyResources {
			form.Levels[r] = kept["perm_"+r]
		}
	default:
		form.QuickName = kept["name"]
	}
	return d.apiKeysPage(c, http.StatusOK, form)
}

func (d *Dashboard) apiKeysPage(c *fiber.Ctx, status int, form views.APIKeyForm) error {
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
	acct, err := d.Store.Account(c.UserContext(), dashScope(c).AccountID)
	if err != nil {
		return err
	}
	page := views.APIKeysPage{Nav: d.nav(c, "api-keys"), NewKey: newKey, Notice: notice, Resources: operations.KeyResources, Form: form,
		LiveAllowed: acct.LiveEnabled(), PaymentsVersion: acct.PaymentsVersion, Versions: versionChoices()}
	// A platform's restricted key may act for chosen subaccounts only.
	subs, _, err := d.Store.ListSubaccounts(c.UserContext(), acct.ID, 100, "")
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, s := range subs {
		page.Subaccounts = append(page.Subaccounts, views.AccountChoice{ID: s.ID, Name: s.Name, Current: slices.Contains(form.Subaccounts, s.ID)})
		names[s.ID] = s.Name
	}
	for _, k := range keys {
		row := views.APIKeyRow{ID: k.ID, Name: k.Name, Mode: k.Mode(), Redacted: k.Redacted, CreatedAt: when(c, k.CreatedAt),
			CreatedBy: k.CreatedByName, Permissions: k.Permissions,
			MakerRemoved: k.RevokedReason != nil && *k.RevokedReason == store.KeyRevokedMakerRemoved}
		// Bounded by its maker's role when that role could not make a full key.
		if limit := k.MakerLimit(); limit != "" && limit != store.RoleGone && operations.KeyPermissionsFor(limit, nil) != nil {
			row.LimitedBy = limit
		}
		for _, p := range k.AllowedIPs {
			row.AllowedIPs = append(row.AllowedIPs, allowedIPLabel(p))
		}
		for _, id := range k.Subaccounts {
			// Named from the list read above; one past its first 100 is read.
			name, ok := names[id]
			if !ok {
				name = id
				if sub, err := d.Store.SubaccountOf(c.UserContext(), acct.ID, id); err == nil {
					name = sub.Name
				}
				names[id] = name
			}
			row.Subaccounts = append(row.Subaccounts, name)
		}
		if k.RevokedAt != nil {
			row.RevokedAt = when(c, *k.RevokedAt)
		}
		if k.LastUsedAt != nil {
			row.LastUsed = when(c, *k.LastUsedAt)
			if k.LastUsedIP != nil {
				row.LastUsedIP = *k.LastUsedIP
			}
		}
		page.Keys = append(page.Keys, row)
	}
	return reply.Page(c, status, views.APIKeys(page))
}

// allowedIPLabel shows a single address without its /32 or /128.
func allowedIPLabel(text string) string {
	p, err := netip.ParsePrefix(text)
	if err == nil && p.Bits() == p.Addr().BitLen() {
		return p.Addr().String()
	}
	return text
}

// CreateAPIKey handles POST /dashboard/api-keys: a full key, or with
// restricted=1 one with the permissions chosen per resource and an
// optional allow-list. The secret is shown on the next page view only.
func (d *Dashboard) CreateAPIKey(c *fiber.Ctx) error {
	mode := c.FormValue("mode")
	if mode != "test" && mode != "live" {
		return reply.InvalidParam("parameter_invalid", "mode", "mode must be test or live.")
	}
	spec := store.NewAPIKey{Name: c.FormValue("name")}
	if c.FormValue("restricted") == "1" {
		form := views.APIKeyForm{Name: spec.Name, AllowedIPs: c.FormValue("allowed_ips"), Levels: map[string]string{}}
		for _, id := range c.Request().PostArgs().PeekMulti("subaccount") {
			form.Subaccounts = append(form.Subaccounts, string(id))
		}
		if len(form.Subaccounts) > 0 {
			spec.Subaccounts = form.Subaccounts
		}
		var perms []string
		for _, r := range operations.KeyResources {
			level := c.FormValue("perm_" + r)
			form.Levels[r] = level
			if level != "" {
				perms = append(perms, r+":"+level)
			}
		}
		var err error
		if spec.Permissions, err = operations.ParseKeyPermissions(perms); err != nil {
			form.Error = t(c, "keys.error_permissions")
			return d.apiKeysPage(c, http.StatusBadRequest, form)
		}
		if spec.AllowedIPs, err = operations.ParseAllowedIPs(strings.FieldsFunc(form.AllowedIPs, isListSeparator)); err != nil {
			form.Error = t(c, "keys.error_ips")
			return d.apiKeysPage(c, http.StatusBadRequest, form)
		}
	}
	_, secret, err := d.Ops.CreateAPIKey(c.UserContext(), request.Actor(c), dashScope(c).AccountID, mode == "live", spec)
	if errors.Is(err, store.ErrAPIKeyLimit) {
		return d.noticeOrErr(c, "/dashboard/api-keys", reply.InvalidRequest(http.StatusConflict, "api_key_limit", "%s", err))
	}
	if errors.Is(err, operations.ErrBadKeyName) {
		return reply.InvalidParam("parameter_invalid", "name", "%s", err)
	}
	if err != nil {
		typed := map[string]string{"name": spec.Name, "restricted": c.FormValue("restricted"), "allowed_ips": c.FormValue("allowed_ips"),
			"subaccounts": strings.Join(spec.Subaccounts, ",")}
		for _, r := range operations.KeyResources {
			typed["perm_"+r] = c.FormValue("perm_" + r)
		}
		return d.keepForStepUp(c, err, "/dashboard/api-keys", typed)
	}
	if err := d.setFlash(c, "reveal:api-key", secret); err != nil {
		return err
	}
	return c.Redirect("/dashboard/api-keys", http.StatusSeeOther)
}

// isListSeparator splits a typed list: commas, spaces, line breaks.
func isListSeparator(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) }

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
	return c.Redirect(d.pageBefore(c), http.StatusSeeOther)
}

// pageBefore is the dashboard page a form was posted from (its Referer's
// path, without the query), else the dashboard: only a path of this site
// is followed, never another origin.
func (d *Dashboard) pageBefore(c *fiber.Ctx) string {
	back := "/dashboard"
	if ref := c.Get(fiber.HeaderReferer); ref != "" {
		if i := strings.Index(ref, "/dashboard/"); i >= 0 && strings.HasPrefix(ref, d.BaseURL) {
			back = ref[i:]
			if j := strings.IndexAny(back, "?#"); j >= 0 {
				back = back[:j]
			}
		}
	}
	return back
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
