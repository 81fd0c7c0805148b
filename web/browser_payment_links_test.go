package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// imageLoads is the natural width of the image sel shows, once loaded.
func imageLoads(sel string, width *int) chromedp.Action {
	return chromedp.Evaluate(`new Promise(r => { const i = document.querySelector('`+sel+`');
		i.complete ? r(i.naturalWidth) : i.onload = () => r(i.naturalWidth); })`, width,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })
}

// A seller without a developer, on a laptop and a phone: makes a payment
// link in the dashboard (a wrong field shown beside it), copies its
// address and sees its QR; a payer opens it, gives their name and CPF and
// lands on the checkout; the link counts the charge and lists it. The
// same seller makes a static QR code to print, with its image and copia e
// cola. Every page in Portuguese, accessible, without side scroll.
func TestBrowserPaymentLinksAndStaticCodesFromTheDashboard(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			ctx := newBrowserContext(t, vp)
			require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com"),
				chromedp.Navigate(s.URL+"/dashboard/payment_links"),
				chromedp.WaitVisible(`[data-testid="new-link"]`, chromedp.ByQuery)))
			checkPage(t, ctx, "payment links")
			require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="new-link"]`, `[data-testid="link-form"]`)))
			checkPage(t, ctx, "new payment link")

			// An e-mail without the payer's name and CPF is refused beside its field.
			var problem string
			require.NoError(t, chromedp.Run(ctx,
				chromedp.SendKeys(`#description`, "Ingresso — show de sábado "+vp.name, chromedp.ByQuery),
				chromedp.SendKeys(`#amount`, "25,00", chromedp.ByQuery),
				chromedp.Click(`#collect_email`, chromedp.ByQuery),
				chromedp.SendKeys(`#max_uses`, "2", chromedp.ByQuery),
				clickAndWait(`[data-testid="submit-link"]`, `[data-testid="error-collect"]`),
				chromedp.Text(`[data-testid="error-collect"]`, &problem, chromedp.ByQuery)))
			require.Equal(t, "O e-mail é pedido junto com o nome e o CPF ou CNPJ.", problem)
			checkPage(t, ctx, "payment link refused")
			var url, amount, uses string
			var qrWidth int
			require.NoError(t, chromedp.Run(ctx,
				chromedp.Click(`#collect_payer`, chromedp.ByQuery),
				clickAndWait(`[data-testid="submit-link"]`, `[data-testid="link-share"]`),
				chromedp.Value(`[data-testid="link-url"]`, &url, chromedp.ByQuery),
				chromedp.Text(`[data-testid="link-amount"]`, &amount, chromedp.ByQuery),
				chromedp.Text(`[data-testid="link-uses"]`, &uses, chromedp.ByQuery),
				imageLoads(`[data-testid="link-qr"]`, &qrWidth),
				chromedp.Click(`[data-testid="copy-link"]`, chromedp.ByQuery)))
			checkPage(t, ctx, "payment link")
			require.Regexp(t, `^`+s.URL+`/pay/link/plink_[0-9A-Za-z]{22}$`, url)
			require.Equal(t, url, clipboard(t, ctx))
			require.Equal(t, "R$ 25,00", strings.ReplaceAll(amount, "\u00a0", " "))
			require.Equal(t, "0 de 2", uses)
			require.Positive(t, qrWidth, "its QR image loads")
			var dashboardPage string
			require.NoError(t, chromedp.Run(ctx, chromedp.Location(&dashboardPage)))

			// The payer's side: the link's page, then the checkout.
			var title, state, charged string
			require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(url),
				chromedp.WaitVisible(`[data-testid="link-form"]`, chromedp.ByQuery),
				chromedp.Text(`h1`, &title, chromedp.ByQuery)))
			require.Equal(t, "Ingresso — show de sábado "+vp.name, title)
			checkPage(t, ctx, "payment link's page")
			require.NoError(t, chromedp.Run(ctx,
				chromedp.SendKeys(`#name`, "Ana Lima", chromedp.ByQuery),
				chromedp.SendKeys(`#document`, "529.982.247-25", chromedp.ByQuery),
				chromedp.SendKeys(`#email`, "ana@example.com", chromedp.ByQuery),
				clickAndWait(`[data-testid="link-pay"]`, `[data-testid="checkout"]`),
				chromedp.AttributeValue(`[data-testid="checkout"]`, "data-state", &state, nil, chromedp.ByQuery),
				chromedp.Text(`[data-testid="checkout-amount"]`, &charged, chromedp.ByQuery)))
			require.Equal(t, "pending", state)
			require.Equal(t, "R$ 25,00", strings.ReplaceAll(charged, "\u00a0", " "))

			// The seller sees the charge waiting, and it among the link's charges.
			var rows int
			require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(dashboardPage),
				chromedp.WaitVisible(`[data-testid="link-share"]`, chromedp.ByQuery),
				clickAndWait(`[data-testid="link-payments"]`, `[data-testid="payments-within"]`),
				chromedp.Evaluate(`document.querySelectorAll('[data-testid="payment-row"]').length`, &rows)))
			require.Equal(t, 1, rows)
			checkPage(t, ctx, "the link's charges")

			// A static code to print: its image, copia e cola and page.
			var code string
			var codeWidth int
			require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(s.URL+"/dashboard/pix_qr_codes"),
				chromedp.WaitVisible(`[data-testid="new-qr-code"]`, chromedp.ByQuery)))
			checkPage(t, ctx, "static codes")
			require.NoError(t, chromedp.Run(ctx,
				clickAndWait(`[data-testid="new-qr-code"]`, `[data-testid="qr-code-form"]`),
				chromedp.SendKeys(`#description`, "Balcão "+vp.name, chromedp.ByQuery),
				clickAndWait(`[data-testid="submit-qr-code"]`, `[data-testid="qr-code-share"]`),
				chromedp.Value(`[data-testid="qr-code-brcode"]`, &code, chromedp.ByQuery),
				imageLoads(`[data-testid="qr-code-image"]`, &codeWidth),
				chromedp.Text(`[data-testid="qr-code-amount"]`, &amount, chromedp.ByQuery)))
			checkPage(t, ctx, "static code")
			require.True(t, strings.HasPrefix(code, "000201"), code)
			require.Positive(t, codeWidth)
			require.Equal(t, "Valor digitado pelo pagador", amount)
			// Deactivated, its image and page leave the dashboard too.
			var closed string
			require.NoError(t, chromedp.Run(ctx,
				clickAndWait(`[data-testid="deactivate-qr-code"]`, `[data-testid="qr-code-closed"]`),
				chromedp.Text(`[data-testid="qr-code-closed"]`, &closed, chromedp.ByQuery)))
			checkPage(t, ctx, "static code deactivated")
			require.Contains(t, closed, "não recebe mais pagamentos")
			var images int
			require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('[data-testid="qr-code-image"], [data-testid="deactivate-qr-code"]').length`, &images)))
			require.Zero(t, images)
			require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(s.URL+"/dashboard/pix_qr_codes"),
				chromedp.WaitVisible(`[data-testid="qr-code-row"]`, chromedp.ByQuery)))
			checkPage(t, ctx, "static codes listed")
		})
	}
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payment_links", Key: s.TestKey}).JSON(t)
	require.Len(t, r["data"], 2)
	for _, l := range r["data"].([]any) {
		require.Equal(t, []any{0.0, 1.0, []any{"name", "document", "email"}}, []any{l.(map[string]any)["uses"], l.(map[string]any)["open_charges"], l.(map[string]any)["collect"]})
	}
}
