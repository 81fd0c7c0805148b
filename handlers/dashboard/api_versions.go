package dashboard

import (
	"errors"
	"net/http"
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/versions"
	"payments/views"
)

// versionChoices are the dated versions, newest first, for a select.
func versionChoices() []string {
	dates := versions.API.Dates()
	slices.Reverse(dates)
	return dates
}

// SetPaymentsVersion handles POST /dashboard/api-version: the account's
// integration pinned to the version chosen (audited by the operation).
func (d *Dashboard) SetPaymentsVersion(c *fiber.Ctx) error {
	version := c.FormValue("payments_version")
	err := d.Ops.SetPaymentsVersion(c.UserContext(), request.Actor(c), dashScope(c), version)
	var bad *operations.InputError
	if errors.As(err, &bad) {
		return d.show(c, outcome{Notice: t(c, bad.Words), Error: true, Location: "/dashboard/api-keys"})
	}
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "versions.pinned_notice", "Version", version), "/dashboard/api-keys")
}

// APIVersions handles GET /dashboard/api-versions: the changelog, each
// version with what it changed, the account's pin marked.
func (d *Dashboard) APIVersions(c *fiber.Ctx) error {
	acct, err := d.Store.Account(c.UserContext(), dashScope(c).AccountID)
	if err != nil {
		return err
	}
	page := views.APIVersionsPage{Nav: d.nav(c, "api-keys"), Pinned: acct.PaymentsVersion}
	english := views.LocaleOf(c.UserContext()).Lang == views.LangEN
	for _, v := range slices.Backward(versions.API) {
		row := views.APIVersionRow{Version: v.Date, Current: v.Date == versions.API.Current()}
		for _, change := range v.Changes {
			text := change.Resumo
			if english {
				text = change.Summary
			}
			row.Changes = append(row.Changes, versions.Segments(text))
		}
		page.Versions = append(page.Versions, row)
	}
	return reply.Page(c, http.StatusOK, views.APIVersions(page))
}
