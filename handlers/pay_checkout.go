package handlers

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/store"
	"payments/views"
)

func (p *Pay) checkoutModel(c *fiber.Ctx) (views.CheckoutPage, error) {
	ref := pathRef(c, "id")
	id, ok := store.ParsePaymentID(ref)
	if !ok {
		return views.CheckoutPage{}, noSuch("payment", "id", ref)
	}
	ctx := c.UserContext()
	payment, err := p.Store.PaymentByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return views.CheckoutPage{}, noSuch("payment", "id", ref)
	}
	if err != nil {
		return views.CheckoutPage{}, err
	}
	acct, err := p.Store.Account(ctx, payment.AccountID)
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
