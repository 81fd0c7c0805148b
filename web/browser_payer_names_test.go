package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

// One name for one merchant, live, on a phone: the checkout names the
// merchant and says the payer's bank will name the platform ("via"); the
// code the payer copies names the merchant; the PSP sandbox's bank names
// the platform as the receiver, with the merchant's name in the charge's
// message; the receipt names the merchant and the name the bank showed.
func TestBrowserLiveCheckoutNamesTheMerchant(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	p := s.CreateLivePayment(map[string]any{"amount_cents": 4_250, "description": "Pedido 77"})
	id := p["id"].(string)
	ctx := newBrowserContext(t, viewports[1])

	var merchant, via, code, bank string
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(s.URL+"/pay/"+id),
		chromedp.WaitVisible(`[data-testid="checkout-qr"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="checkout"] p`, &merchant, chromedp.ByQuery),
		chromedp.Text(`[data-testid="payer-via"]`, &via, chromedp.ByQuery),
		chromedp.Value(`[data-testid="checkout-brcode"]`, &code, chromedp.ByQuery),
		chromedp.AttributeValue(`[data-testid="checkout-sandbox-pay"]`, "href", &bank, nil, chromedp.ByQuery)))
	require.Equal(t, "Loja Teste", merchant)
	require.Equal(t, "via Pagamentos: é o nome que o seu banco mostra como recebedor", via)
	d, err := pix.Decode(code)
	require.NoError(t, err)
	require.Equal(t, "Loja Teste", d.Fields["59"], "the copied code names the merchant")
	checkPage(t, ctx, "live checkout")

	var receiver, message string
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(bank),
		clickAndWait(`[data-testid="pay"]`, `[data-testid="paid"]`),
		chromedp.Text(`[data-testid="paid-receiver"]`, &receiver, chromedp.ByQuery),
		chromedp.Text(`[data-testid="paid-message"]`, &message, chromedp.ByQuery)))
	require.Equal(t, "Pagamentos", receiver, "the bank names the key's holder, as the checkout said")
	require.Equal(t, "Loja Teste: Pedido 77", message, "and the merchant in the charge's message")

	s.WaitForPayment(s.LiveKey, id, "paid", 15*time.Second)
	var lines []string
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(s.URL+"/pay/"+id+"/receipt"),
		chromedp.WaitVisible(`[data-testid="receipt-via"]`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="receipt-receiver"], [data-testid="receipt-via"]')]
			.map(e => e.closest('div').innerText.replace(/\s+/g, ' ').trim())`, &lines)))
	require.Equal(t, []string{"Recebedor Loja Teste", "Nome do recebedor no seu banco Pagamentos"}, lines)
	checkPage(t, ctx, "live receipt")
	require.False(t, strings.Contains(strings.Join(lines, " "), "Payments"))
}
