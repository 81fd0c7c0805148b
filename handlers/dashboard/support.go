package dashboard

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/pix"
	"payments/pix/calendar"
	"payments/store"
	"payments/views"
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

// Support handles GET /dashboard/support: search every account's payments
// by whatever a payer or merchant reads out.
func (d *Dashboard) Support(c *fiber.Ctx) error {
	q := c.Query("q")
	found, err := d.Store.SearchPayments(c.UserContext(), q, supportResults)
	if err != nil {
		return err
	}
	notice, err := d.takeNotice(c)
	if err != nil {
		return err
	}
	page := views.SupportPage{Nav: d.nav(c, "support"), Query: q, Notice: notice}
	subs, err := d.Store.SearchSubscriptions(c.UserContext(), q, supportResults)
	if err != nil {
		return err
	}
	for i := range subs {
		sub := &subs[i]
		row := views.SupportSubscriptionRow{ID: sub.ID, Account: sub.AccountName, Status: sub.Status, Payer: sub.Payer.Name,
			Document: pix.MaskDocument(sub.Payer.Document), Contract: sub.Contract, AmountLabel: subscriptionAmount(c, &sub.Subscription),
			Livemode: sub.Livemode}
		if sub.NextCycleOn != nil {
			row.NextCycle = views.Day(calendar.FromTime(*sub.NextCycleOn))
		}
		page.Subscriptions = append(page.Subscriptions, row)
	}
	awaiting, err := d.Store.AccountsAwaitingLive(c.UserContext(), supportResults)
	if err != nil {
		return err
	}
	for _, a := range awaiting {
		row := views.AwaitingAccount{ID: a.ID, Name: a.Name, Email: a.Email, Since: when(c, a.CreatedAt)}
		if a.Document != nil {
			row.Document = pix.FormatDocument(*a.Document)
		}
		page.AwaitingLive = append(page.AwaitingLive, row)
	}
	for i := range found {
		p := &found[i]
		row := views.SupportRow{ID: p.ID.String(), Account: p.AccountName, Livemode: p.Livemode, Status: p.Status,
			AmountLabel: pix.FormatBRL(p.AmountCents), CreatedAt: when(c, p.CreatedAt)}
		if p.ExternalID != nil {
			row.ExternalID = *p.ExternalID
		}
		if p.Customer != nil {
			row.Customer = p.Customer.Name
			if p.Customer.Email != "" {
				row.Customer += " · " + p.Customer.Email
			}
			row.Document = pix.MaskDocument(p.Customer.Document)
		}
		page.Results = append(page.Results, row)
	}
	problems, err := d.Store.PixNotifications(c.UserContext(), true, supportResults)
	if err != nil {
		return err
	}
	for _, n := range problems {
		pr := views.PSPProblem{EndToEndID: n.EndToEndID, TxID: n.TxID, AmountLabel: pix.FormatBRL(n.AmountCents),
			Outcome: n.Outcome, At: when(c, n.ReceivedAt)}
		if n.PaymentID != nil {
			pr.PaymentURL = "/dashboard/support/payments/" + n.PaymentID.String()
		}
		if n.ReturnStatus != nil {
			pr.ReturnStatus = *n.ReturnStatus
		}
		page.Problems = append(page.Problems, pr)
	}
	return reply.Page(c, http.StatusOK, views.Support(page))
}

// SupportPayment handles GET /dashboard/support/payments/{id}: any
// account's payment, read-only, with its delivery history; the customer's
// document masked.
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
	m, err := d.paymentDetail(c, p, true)
	if err != nil {
		return err
	}
	m.Nav.Active = "support"
	m.BackURL, m.BackLabel = "/dashboard/support", t(c, "nav.support")
	m.Account = acct.Name + " (" + acct.ID + ", " + t(c, "mode."+store.ModeName(p.Livemode)) + ")"
	return reply.Page(c, http.StatusOK, views.PaymentDetailPage(m.PaymentDetail))
}

// SupportDisputeEvidence handles GET
// /dashboard/support/disputes/{id}/evidence/{file}: any account's defense
// file, for support staff.
func (d *Dashboard) SupportDisputeEvidence(c *fiber.Ctx) error {
	e, err := d.Store.AnyEvidence(c.UserContext(), pathParam(c, "id"), pathParam(c, "file"))
	if err != nil {
		return reply.Evidence(err, pathParam(c, "file"))
	}
	return reply.EvidenceFile(c, e.FileName, e.ContentType, e.Content)
}

// SupportDelivery handles GET /dashboard/support/deliveries/{id}: any
// account's delivery with every attempt, read-only.
func (d *Dashboard) SupportDelivery(c *fiber.Ctx) error {
	id := pathParam(c, "id")
	dl, err := d.Store.DeliveryByID(c.UserContext(), id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("delivery", "id", id)
	}
	if err != nil {
		return err
	}
	w, err := d.Store.Webhook(c.UserContext(), store.Scope{AccountID: dl.AccountID, Livemode: dl.Livemode}, dl.WebhookID)
	if err != nil {
		return err
	}
	page, err := d.deliveryPage(c, w, id)
	if err != nil {
		return err
	}
	page.Nav, page.ReadOnly = d.nav(c, "support"), true
	page.BackURL, page.BackLabel = "/dashboard/support", t(c, "nav.support")
	return reply.Page(c, http.StatusOK, views.DeliveryDetailPage(page))
}

// Home handles GET /dashboard: each role's start page.
func (d *Dashboard) Home(c *fiber.Ctx) error {
	if request.CurrentUser(c).User.Role == store.RoleSupport {
		return c.Redirect("/dashboard/support", http.StatusSeeOther)
	}
	return d.Overview(c)
}

// ActivateLive handles POST /dashboard/support/accounts/{id}/activate-live:
// staff turn on the live mode of an account that signed up (audited).
func (d *Dashboard) ActivateLive(c *fiber.Ctx) error {
	acct, err := d.Ops.ActivateLive(c.UserContext(), request.Actor(c), pathParam(c, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("account", "id", pathParam(c, "id"))
	}
	if err != nil {
		return reply.Refusal(err)
	}
	return d.noticeAndGo(c, t(c, "support.live_activated", "Account", acct.Name), "/dashboard/support")
}
