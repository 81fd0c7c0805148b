package dashboard

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/store"
	"payments/views"
	"payments/web/reply"
	"payments/web/request"
)

const supportResults = 50

// RequireSupport keeps the support console to support staff.
func RequireSupport(c *fiber.Ctx) error {
	if u := request.CurrentUser(c); u == nil || u.User.Role != store.RoleSupport {
		return &reply.Error{Status: http.StatusForbidden, Type: reply.TypePermission, Code: "support_only",
			Message: "The support console is for support staff."}
	}
	return c.Next()
}

// Support handles GET /dashboard/support: search every account's payments.
func (d *Dashboard) Support(c *fiber.Ctx) error {
	q := c.Query("q")
	found, err := d.Store.SearchPayments(c.UserContext(), q, supportResults)
	if err != nil {
		return err
	}
	page := views.SupportPage{Nav: d.nav(c, "support"), Query: q}
	for i := range found {
		p := &found[i]
		row := views.SupportRow{ID: p.ID.String(), Account: p.AccountName, Livemode: p.Livemode, Status: p.Status,
			AmountLabel: pix.FormatBRL(p.AmountCents), CreatedAt: views.FormatTime(p.CreatedAt)}
		if p.ExternalID != nil {
			row.ExternalID = *p.ExternalID
		}
		if p.Customer != nil {
			row.Customer = p.Customer.Name + " · " + p.Customer.Email
		}
		page.Results = append(page.Results, row)
	}
	problems, err := d.Store.PixNotifications(c.UserContext(), true, supportResults)
	if err != nil {
		return err
	}
	for _, n := range problems {
		pr := views.PSPProblem{EndToEndID: n.EndToEndID, TxID: n.TxID, AmountLabel: pix.FormatBRL(n.AmountCents),
			Outcome: n.Outcome, At: views.FormatTime(n.ReceivedAt)}
		if n.PaymentID != nil {
			pr.PaymentURL = "/dashboard/support/payments/" + n.PaymentID.String()
		}
		page.Problems = append(page.Problems, pr)
	}
	return reply.Page(c, http.StatusOK, views.Support(page))
}

// SupportPayment handles GET /dashboard/support/payments/{id}: any
// account's payment, read-only, with its delivery history.
func (d *Dashboard) SupportPayment(c *fiber.Ctx) error {
	ref := pathParam(c, "id")
	p, err := d.Store.PublicPayment(c.UserContext(), ref)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuchPayment(ref)
	}
	if err != nil {
		return err
	}
	acct, err := d.Store.Account(c.UserContext(), p.AccountID)
	if err != nil {
		return err
	}
	m, err := d.paymentDetail(c, p)
	if err != nil {
		return err
	}
	m.Nav.Active = "support"
	m.BackURL, m.BackLabel = "/dashboard/support", "Support"
	m.Account = acct.Name + " (" + acct.ID + ", " + store.ModeName(p.Livemode) + ")"
	return reply.Page(c, http.StatusOK, views.PaymentDetailPage(m))
}

// Home handles GET /dashboard: each role's start page.
func (d *Dashboard) Home(c *fiber.Ctx) error {
	if request.CurrentUser(c).User.Role == store.RoleSupport {
		return c.Redirect("/dashboard/support", http.StatusSeeOther)
	}
	return c.Redirect("/dashboard/payments", http.StatusSeeOther)
}
