package web_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

// A payment's page tells where its money stands, on a laptop and a phone:
// partly refunded, disputed and refunded in full each read so, with what
// went back and what is left; once paid it says when, and neither its
// expiry nor its payment link are offered any more. The list says the same.
func TestBrowserPaymentTellsTheMoneysTruth(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			moneysTruth(t, vp)
		})
	}
}

func moneysTruth(t *testing.T, vp viewport) {
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	api := func(method, path string, body any) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: method, Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusOK, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	partly := s.Fund(s.TestKey, 246_912)
	afterRefund := api("POST", "/api/v1/payments/"+partly+"/refund", map[string]any{"amount_cents": 100_050})
	fee := int64(afterRefund["fee_cents"].(float64))
	net := int64(afterRefund["net_cents"].(float64))
	require.Equal(t, 246_912-fee-100_050+fee*100_050/246_912, net)
	disputed := s.Fund(s.TestKey, 3_000)
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + disputed + "/dispute", Key: s.TestKey})
	whole := s.Fund(s.TestKey, 5_000)
	api("POST", "/api/v1/payments/"+whole+"/refund", nil)
	pending := s.CreatePayment(map[string]any{"amount_cents": 1_000})["id"].(string)

	ctx := newBrowserContext(t, vp)
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com")))
	type page struct {
		standing, net, refunded string
		paid                    bool
	}
	read := func(id string) (p page, expires, link int) {
		t.Helper()
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(s.URL+"/dashboard/payments/"+id),
			chromedp.WaitVisible(`[data-testid="payment-fields"]`, chromedp.ByQuery),
			chromedp.Text(`h1 + [data-testid="status"]`, &p.standing, chromedp.ByQuery),
			chromedp.Text(`[data-testid="payment-net"]`, &p.net, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelector('[data-testid="payment-refunded"]')?.innerText ?? ''`, &p.refunded),
			chromedp.Evaluate(`!!document.querySelector('[data-testid="payment-paid-at"]')`, &p.paid),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid="payment-expires"]').length`, &expires),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid="checkout-link"]').length`, &link),
		), id)
		checkPage(t, ctx, "payment "+id)
		return p, expires, link
	}

	p, expires, link := read(partly)
	require.Equal(t, page{"Parcialmente devolvido", pix.FormatBRL(net), "R$ 1.000,50", true}, p)
	require.Zero(t, expires+link, "a paid payment offers neither expiry nor payment link")
	p, expires, link = read(disputed)
	require.Equal(t, "Em disputa", p.standing)
	require.True(t, p.paid)
	require.Zero(t, expires+link)
	p, expires, link = read(whole)
	require.Equal(t, page{"Devolvido", "R$ 0,00", "R$ 50,00", true}, p)
	require.Zero(t, expires+link)
	p, expires, link = read(pending)
	require.Equal(t, "Pendente", p.standing)
	require.False(t, p.paid)
	require.Equal(t, 2, expires+link, "a pending charge shows when it expires and the link to pay it")

	var standings map[string]string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/payments"),
		chromedp.WaitVisible(`[data-testid="payments-table"]`, chromedp.ByQuery),
		chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll('[data-testid="payment-row"]')].map(r =>
			[r.dataset.paymentId, r.querySelector('[data-testid="status"]').innerText]))`, &standings)))
	require.Equal(t, map[string]string{partly: "Parcialmente devolvido", disputed: "Em disputa", whole: "Devolvido", pending: "Pendente"}, standings)
}
