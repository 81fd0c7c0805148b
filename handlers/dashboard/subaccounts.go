package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// Subaccounts handles GET /dashboard/subaccounts: the platform's
// subaccounts with their balances in the mode shown, each to open, and the
// form that makes one.
func (d *Dashboard) Subaccounts(c *fiber.Ctx) error {
	return d.subaccountsPage(c, http.StatusOK, views.SubaccountForm{Errors: map[string]string{}})
}

func (d *Dashboard) subaccountsPage(c *fiber.Ctx, status int, form views.SubaccountForm) error {
	scope := dashScope(c)
	page, hasMore, err := d.Store.ListSubaccounts(c.UserContext(), scope.AccountID, dashPageSize, c.Query("starting_after"))
	if err != nil {
		return err
	}
	m := views.SubaccountsPage{Nav: d.nav(c, "subaccounts"), CanCreate: may(c, operations.Subaccounts), Form: form}
	ids := make([]string, len(page))
	for i := range page {
		ids[i] = page[i].ID
	}
	balances, err := d.Store.Balances(c.UserContext(), ids, scope.Livemode)
	if err != nil {
		return err
	}
	for i := range page {
		a := &page[i]
		b := balances[a.ID]
		row := views.SubaccountRow{ID: a.ID, Name: a.Name, Email: a.Email, Status: a.Status, Available: pix.FormatBRL(b.AvailableCents),
			Pending: pix.FormatBRL(b.PendingCents), CreatedAt: when(c, a.CreatedAt)}
		if a.Document != nil {
			row.Document = pix.FormatDocument(*a.Document)
		}
		if a.PixKey != nil {
			row.PixKey = *a.PixKey
		}
		m.Rows = append(m.Rows, row)
	}
	if hasMore {
		m.NextURL = "/dashboard/subaccounts?" + url.Values{"starting_after": {page[len(page)-1].ID}}.Encode()
	}
	return reply.Page(c, status, views.Subaccounts(m))
}

// CreateSubaccount handles POST /dashboard/subaccounts: the API's rules,
// each refusal beside its field in the person's words.
func (d *Dashboard) CreateSubaccount(c *fiber.Ctx) error {
	get := func(name string) string { return strings.TrimSpace(c.FormValue(name)) }
	form := views.SubaccountForm{Name: get("name"), Document: get("document"), Email: get("email"), PixKey: get("pix_key"),
		Errors: map[string]string{}}
	sub, err := d.Ops.CreateSubaccount(c.UserContext(), request.Actor(c), dashScope(c),
		operations.SubaccountInput{Name: form.Name, Document: form.Document, Email: form.Email, PixKey: form.PixKey})
	if refusedFields(c, err, form.Errors) {
		return d.subaccountsPage(c, http.StatusUnprocessableEntity, form)
	}
	if errors.Is(err, store.ErrNotAPlatform) {
		return reply.InvalidRequest(http.StatusBadRequest, "platform_only", "A subaccount has no subaccounts.")
	}
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "subaccounts.created", "Name", sub.Name), "/dashboard/subaccounts")
}
