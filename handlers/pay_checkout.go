package handlers

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/views"
)

func (p *Pay) checkoutModel(c *fiber.Ctx) (views.CheckoutPage, error) {
	payment, err := paymentByPathID(c, p.Store)
	if err != nil {
		return views.CheckoutPage{}, err
	}
	acct, err := p.Store.Account(c.UserContext(), payment.AccountID)
	if err != nil {
		return views.CheckoutPage{}, err
	}
	m := views.CheckoutPage{
		PaymentID: payment.ID.String(), Merchant: acct.Name, AmountLabel: pix.FormatBRL(payment.AmountCents),
		BRCode: payment.BRCode, QRCodeURL: payment.QRCodeURL, Status: payment.Status,
		ExpiresAt: payment.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z"), ExpiresLabel: payment.ExpiresAt.UTC().Format(dashTime),
	}
	if payment.Description != nil {
		m.Description = *payment.Description
	}
	return m, nil
}

// Checkout handles GET /pay/{id}: the payer's page, public like the QR image.
func (p *Pay) Checkout(c *fiber.Ctx) error {
	m, err := p.checkoutModel(c)
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, views.Checkout(m))
}

// CheckoutStatus handles GET /pay/{id}/status: the fragment htmx polls.
func (p *Pay) CheckoutStatus(c *fiber.Ctx) error {
	m, err := p.checkoutModel(c)
	if err != nil {
		return err
	}
	c.Set("Vary", "HX-Request")
	return Render(c, http.StatusOK, views.CheckoutStatus(m))
}
