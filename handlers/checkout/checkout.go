// Package checkout serves the payer's public pages under /pay: the checkout
// page with its status fragment, and the QR image. They are addressed by
// the payment's unguessable id alone; the payer has no key. They speak the
// browser's language (Accept-Language; Portuguese first) and show times in
// the merchant's time zone.
package checkout

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/pix/calendar"
	"payments/store"
	"payments/views"
)

// Checkout serves the payer's pages.
type Checkout struct {
	Store *store.Store
	// Ops makes the charges a payer asks for at a payment link.
	Ops *operations.Operations
	// AllowLinkCharge says whether the address ip may make one more
	// charge through a payment link now (nil: no limit).
	AllowLinkCharge func(ctx context.Context, ip string) (bool, error)
	// SandboxPayerURL is the PSP sandbox's payer page, in development: a
	// live charge's page links to it with its code.
	SandboxPayerURL string
	// ReceiverName is the name a payer's bank shows as the receiver of
	// every Pix: the platform's, whose key at the PSP takes them.
	ReceiverName string
}

// via is the name the payer's bank will show instead of merchant's (""
// when it shows the merchant's own): the pages say "via" it, so that a
// payer who reads another name at their bank knows why.
func (ch *Checkout) via(merchant string) string {
	if strings.EqualFold(strings.TrimSpace(merchant), strings.TrimSpace(ch.ReceiverName)) {
		return ""
	}
	return ch.ReceiverName
}

// payment loads the payment the path's {id} names, in any account.
func (ch *Checkout) payment(c *fiber.Ctx) (*store.Payment, error) {
	ref, _ := request.Param(c, "id")
	p, err := ch.Store.PublicPayment(c.UserContext(), ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuchPayment(ref)
	}
	return p, err
}

// State is what the payer can do with p now (see views.CheckoutPage.State):
// a pending charge past its expiry is expired already, whether or not the
// sweeper has reached it, so its code is never offered.
func State(p *store.Payment, now time.Time) string {
	switch {
	case p.Status == store.StatusPending && p.BRCode == "":
		return "preparing"
	case p.Status == store.StatusPending && !now.Before(p.ExpiresAt):
		return store.StatusExpired
	}
	return p.Status
}

func (ch *Checkout) model(c *fiber.Ctx) (views.CheckoutPage, error) {
	payment, err := ch.payment(c)
	if err != nil {
		return views.CheckoutPage{}, err
	}
	acct, ctx, err := ch.payerLocale(c, payment.AccountID)
	if err != nil {
		return views.CheckoutPage{}, err
	}
	m := views.CheckoutPage{
		PaymentID: payment.ID.String(), Merchant: acct.Name, Via: ch.via(acct.Name), AmountLabel: pix.FormatBRL(payment.AmountCents),
		BRCode: payment.BRCode, QRCodeURL: payment.QRCodeURL, State: State(payment, ch.Store.Now()),
		ExpiresAt: views.ISO(payment.ExpiresAt), ExpiresLabel: views.Time(ctx, payment.ExpiresAt),
	}
	if payment.Description != nil {
		m.Description = *payment.Description
	}
	if payment.PaidAt != nil {
		m.AmountLabel = pix.FormatBRL(payment.ReceivedCents())
	}
	if t := payment.DueTerms; t != nil {
		dueToday(ctx, &m, payment, calendar.Today(ch.Store.Now()))
	}
	if payment.PaidAt != nil {
		m.PaidLabel = views.Time(ctx, *payment.PaidAt)
	}
	if ch.SandboxPayerURL != "" && payment.Livemode && payment.BRCode != "" {
		m.SandboxPayURL = ch.SandboxPayerURL + "?code=" + url.QueryEscape(payment.BRCode)
	}
	return m, nil
}

// dueToday shows a due-date charge's due date and, while it is payable,
// what its payer owes today, part by part, as the payer's bank computes it.
func dueToday(ctx context.Context, m *views.CheckoutPage, p *store.Payment, today calendar.Date) {
	t := p.DueTerms
	due := t.Due()
	m.DueDateLabel = views.Day(due)
	m.Overdue = today.After(due)
	if p.Status != store.StatusPending {
		return
	}
	b := p.AmountDue(today)
	m.AmountLabel = pix.FormatBRL(b.AmountDueCents)
	m.Lines = views.AmountLines(ctx, t, b)
}

// payerLocale is the merchant's account and the payer's locale: the
// browser's language, the account's time zone, set on c for the page.
func (ch *Checkout) payerLocale(c *fiber.Ctx, accountID string) (*store.Account, context.Context, error) {
	return ch.payerLocaleIn(c, accountID, "")
}

// payerLocaleIn is payerLocale with times in zone ("": the account's).
func (ch *Checkout) payerLocaleIn(c *fiber.Ctx, accountID, zone string) (*store.Account, context.Context, error) {
	acct, err := ch.Store.Account(c.UserContext(), accountID)
	if err != nil {
		return nil, nil, err
	}
	if zone == "" {
		zone = acct.TimeZone
	}
	ctx := views.WithLocale(c.UserContext(), views.NewLocale(views.MatchLanguage(c.Get(fiber.HeaderAcceptLanguage)), zone))
	c.SetUserContext(ctx)
	return acct, ctx, nil
}

// Page handles GET /pay/{id}: the payer's page.
func (ch *Checkout) Page(c *fiber.Ctx) error {
	m, err := ch.model(c)
	if err != nil {
		return err
	}
	c.Set("Vary", "Accept-Language")
	return reply.Page(c, http.StatusOK, views.Checkout(m))
}

// Status handles GET /pay/{id}/status: the card htmx polls, whole, so the
// code goes away with the state that allowed it.
func (ch *Checkout) Status(c *fiber.Ctx) error {
	m, err := ch.model(c)
	if err != nil {
		return err
	}
	c.Set("Vary", "HX-Request, Accept-Language")
	c.Set(fiber.HeaderCacheControl, "no-store")
	return reply.Page(c, http.StatusOK, views.CheckoutCard(m))
}
