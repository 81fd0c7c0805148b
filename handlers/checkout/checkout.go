// Package checkout serves the payer's public pages under /pay: the checkout
// page with its status fragment, and the QR image. They are addressed by
// the payment's unguessable id alone; the payer has no key.
package checkout

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/store"
	"payments/views"
	"payments/web/reply"
	"payments/web/request"
)

// Checkout serves the payer's pages.
type Checkout struct {
	Store *store.Store
	// SandboxPayerURL is the PSP sandbox's payer page, in development: a
	// live charge's page links to it with its code.
	SandboxPayerURL string
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

func (ch *Checkout) model(c *fiber.Ctx) (views.CheckoutPage, error) {
	payment, err := ch.payment(c)
	if err != nil {
		return views.CheckoutPage{}, err
	}
	acct, err := ch.Store.Account(c.UserContext(), payment.AccountID)
	if err != nil {
		return views.CheckoutPage{}, err
	}
	m := views.CheckoutPage{
		PaymentID: payment.ID.String(), Merchant: acct.Name, AmountLabel: pix.FormatBRL(payment.AmountCents),
		BRCode: payment.BRCode, QRCodeURL: payment.QRCodeURL, Status: payment.Status, Preparing: payment.BRCode == "",
		ExpiresAt: payment.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z"), ExpiresLabel: views.FormatTime(payment.ExpiresAt),
	}
	if payment.Description != nil {
		m.Description = *payment.Description
	}
	if ch.SandboxPayerURL != "" && payment.Livemode && payment.BRCode != "" {
		m.SandboxPayURL = ch.SandboxPayerURL + "?code=" + url.QueryEscape(payment.BRCode)
	}
	return m, nil
}

// Page handles GET /pay/{id}: the payer's page.
func (ch *Checkout) Page(c *fiber.Ctx) error {
	m, err := ch.model(c)
	if err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.Checkout(m))
}

// Status handles GET /pay/{id}/status: the fragment htmx polls.
func (ch *Checkout) Status(c *fiber.Ctx) error {
	m, err := ch.model(c)
	if err != nil {
		return err
	}
	c.Set("Vary", "HX-Request")
	if c.Query("preparing") != "" && !m.Preparing {
		// The charge is ready: the whole page changes (the code and QR
		// appear), so htmx reloads it rather than swap the fragment.
		c.Set("HX-Refresh", "true")
	}
	return reply.Page(c, http.StatusOK, views.CheckoutStatus(m))
}
