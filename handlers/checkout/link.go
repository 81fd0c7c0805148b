package checkout

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// LinkChargesPerMinute bounds the charges one address makes through
// payment links in a minute: enough for a shop's payers behind one
// network, too few to hold a link's uses by script.
const LinkChargesPerMinute = 30

// linkPage is the link the path names with its page's model, in the
// payer's language; the page says why when the link takes no payer.
func (ch *Checkout) linkPage(c *fiber.Ctx) (*store.PaymentLink, views.PaymentLinkPage, int, error) {
	id := c.Params("id")
	l, err := ch.Store.PublicPaymentLink(c.UserContext(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, views.PaymentLinkPage{}, 0, reply.NoSuch("payment link", "id", id)
	}
	if err != nil {
		return nil, views.PaymentLinkPage{}, 0, err
	}
	acct, ctx, err := ch.payerLocale(c, l.AccountID)
	if err != nil {
		return nil, views.PaymentLinkPage{}, 0, err
	}
	m := views.PaymentLinkPage{Action: "/pay/link/" + l.ID, Merchant: acct.Name, Via: ch.via(acct.Name), Description: l.Description, Errors: map[string]string{},
		AskName: l.Collects(store.CollectName), AskDocument: l.Collects(store.CollectDocument), AskEmail: l.Collects(store.CollectEmail)}
	if l.AmountCents != nil {
		m.AmountLabel = pix.FormatBRL(*l.AmountCents)
	} else {
		m.RangeLabel = views.T(ctx, "link_page.range", "Min", pix.FormatBRL(*l.MinAmountCents), "Max", pix.FormatBRL(*l.MaxAmountCents))
	}
	status := http.StatusOK
	if refusal := l.Refusal(ch.Store.Now()); refusal != nil {
		m.Closed, status = closedWords(c, refusal)
	}
	c.Set("Vary", "Accept-Language")
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return l, m, status, nil
}

// closedWords says why a link takes no payer, with its status: gone for
// good (410), or busy until a held use ends (409).
func closedWords(c *fiber.Ctx, refusal error) (string, int) {
	switch {
	case errors.Is(refusal, store.ErrLinkUsedUp):
		return views.T(c.UserContext(), "link_page.used_up"), http.StatusGone
	case errors.Is(refusal, store.ErrLinkBusy):
		return views.T(c.UserContext(), "link_page.busy"), http.StatusConflict
	}
	return views.T(c.UserContext(), "link_page.inactive"), http.StatusGone
}

// LinkPage handles GET /pay/link/{id}: a payment link's page, where a
// payer gives the amount and the data it asks, in the browser's language.
func (ch *Checkout) LinkPage(c *fiber.Ctx) error {
	_, m, status, err := ch.linkPage(c)
	if err != nil {
		return err
	}
	return reply.Page(c, status, views.PaymentLinkPay(m))
}

// LinkCharge handles POST /pay/link/{id}: the payer's charge, made by the
// operation every charge through a link is made by, then its checkout
// (303); a refused field is shown beside it (422).
func (ch *Checkout) LinkCharge(c *fiber.Ctx) error {
	l, m, status, err := ch.linkPage(c)
	if err != nil {
		return err
	}
	if m.Closed != "" {
		return reply.Page(c, status, views.PaymentLinkPay(m))
	}
	ctx := c.UserContext()
	get := func(name string) string { return strings.TrimSpace(c.FormValue(name)) }
	m.Amount, m.Name, m.Document, m.Email = get("amount"), get("name"), get("document"), get("email")
	in := operations.LinkPayerInput{}
	least, most := l.Bounds()
	if l.AmountCents != nil {
		in.AmountCents = *l.AmountCents
	} else if cents, ok := pix.ParseBRL(m.Amount); !ok || cents < least || cents > most {
		m.Errors["amount"] = views.T(ctx, "link_page.amount_range", "Min", pix.FormatBRL(least), "Max", pix.FormatBRL(most))
	} else {
		in.AmountCents = cents
	}
	if m.AskName {
		in.Customer = &store.Customer{Name: m.Name}
		if m.Name == "" || len([]rune(m.Name)) > store.MaxCustomerName {
			m.Errors["name"] = views.T(ctx, "form.customer_name")
		}
		if doc, _, ok := pix.NormalizeDocument(m.Document); ok {
			in.Customer.Document = doc
		} else {
			m.Errors["document"] = views.T(ctx, "form.document")
		}
		if m.AskEmail {
			in.Customer.Email = m.Email
			if !store.ValidEmail(m.Email) {
				m.Errors["email"] = views.T(ctx, "form.email")
			}
		}
	}
	if len(m.Errors) > 0 {
		return reply.Page(c, http.StatusUnprocessableEntity, views.PaymentLinkPay(m))
	}
	if ch.AllowLinkCharge != nil {
		allowed, err := ch.AllowLinkCharge(ctx, c.IP())
		if err != nil {
			return err
		}
		if !allowed {
			m.Errors[""] = views.T(ctx, "link_page.too_many")
			c.Set(fiber.HeaderRetryAfter, "60")
			return reply.Page(c, http.StatusTooManyRequests, views.PaymentLinkPay(m))
		}
	}
	p, err := ch.Ops.ChargeThroughLink(ctx, store.ActorPayer, l.ID, in)
	switch {
	case errors.Is(err, store.ErrLinkAmount):
		m.Errors["amount"] = views.T(ctx, "link_page.amount_range", "Min", pix.FormatBRL(least), "Max", pix.FormatBRL(most))
		return reply.Page(c, http.StatusUnprocessableEntity, views.PaymentLinkPay(m))
	case errors.Is(err, store.ErrLinkInactive), errors.Is(err, store.ErrLinkUsedUp), errors.Is(err, store.ErrLinkBusy),
		errors.Is(err, operations.ErrLiveModeOff), errors.Is(err, operations.ErrLiveNotActivated):
		m.Closed, status = closedWords(c, err)
		return reply.Page(c, status, views.PaymentLinkPay(m))
	case err != nil:
		return err
	}
	return c.Redirect("/pay/"+p.ID.String(), http.StatusSeeOther)
}

// LinkQRCode handles GET /pay/link/{id}/qr.png: the link's address as a
// QR image, to print or share (a phone's camera opens the page).
func (ch *Checkout) LinkQRCode(c *fiber.Ctx) error {
	id := c.Params("id")
	l, err := ch.Store.PublicPaymentLink(c.UserContext(), id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("payment link", "id", id)
	}
	if err != nil {
		return err
	}
	return sendQR(c, l.URL())
}
