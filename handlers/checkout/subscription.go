package checkout

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/pix"
	"payments/pix/calendar"
	"payments/store"
	"payments/views"
)

// subscription loads the subscription the path's {id} names, in any
// account (its id's random part makes it unguessable, as a payment's).
func (ch *Checkout) subscription(c *fiber.Ctx) (*store.Subscription, error) {
	ref, _ := request.Param(c, "id")
	sub, err := ch.Store.PublicSubscription(c.UserContext(), ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuch("subscription", "id", ref)
	}
	return sub, err
}

// SubscriptionPage handles GET /pay/subscriptions/{id}: what the payer is
// asked to authorize (the receiver, the amount or its ceiling, how often,
// from when and until when, the retries) with the QR their bank's app
// reads, and how to cancel later; in the browser's language.
func (ch *Checkout) SubscriptionPage(c *fiber.Ctx) error {
	sub, err := ch.subscription(c)
	if err != nil {
		return err
	}
	acct, _, err := ch.payerLocale(c, sub.AccountID)
	if err != nil {
		return err
	}
	m := views.SubscriptionCheckout{ID: sub.ID, Merchant: acct.Name, Via: ch.via(acct.Name), Contract: sub.Contract, Status: sub.Status,
		Interval: sub.Interval, Start: views.Day(calendar.FromTime(sub.StartDate)), Retries: sub.RetryPolicy == store.RetryThreeInSeven}
	if sub.Description != nil {
		m.Description = *sub.Description
	}
	if sub.AmountCents != nil {
		m.AmountLabel = pix.FormatBRL(*sub.AmountCents)
	} else if sub.MaxAmountCents != nil {
		m.CeilingLabel = pix.FormatBRL(*sub.MaxAmountCents)
	}
	if sub.EndDate != nil {
		m.End = views.Day(calendar.FromTime(*sub.EndDate))
	}
	if sub.BRCode != nil && sub.Status == store.SubscriptionAwaiting {
		m.BRCode, m.QRCodeURL = *sub.BRCode, "/pay/subscriptions/"+sub.ID+"/qr.png"
		m.PaysFirst = sub.FirstPaymentID != nil
		if ch.SandboxPayerURL != "" && sub.Livemode {
			m.SandboxAuthorizeURL = ch.SandboxPayerURL + "?code=" + url.QueryEscape(*sub.BRCode)
		}
	}
	c.Set("Vary", "Accept-Language")
	return reply.Page(c, http.StatusOK, views.SubscriptionCheckoutPage(m))
}

// SubscriptionQR handles GET /pay/subscriptions/{id}/qr.png: the code to
// authorize, while the subscription awaits it.
func (ch *Checkout) SubscriptionQR(c *fiber.Ctx) error {
	sub, err := ch.subscription(c)
	if err != nil {
		return err
	}
	if sub.BRCode == nil || sub.Status != store.SubscriptionAwaiting {
		return reply.NoSuch("QR code", "id", sub.ID)
	}
	return sendQR(c, *sub.BRCode)
}
