package web_test

import (
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// TestBrowserWithdrawAndRefund: in Chromium, withdraw through the Balance
// form and simulate the PSP completing it, then refund a payment, accepting
// the confirmation the browser asks for.
func TestBrowserWithdrawAndRefund(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	payTest(t, s, 200_000)             // available R$ 1.980,20
	refundable := payTest(t, s, 5_000) // fee 50 (0.99% rounded half up): R$ 49,50

	ctx := newBrowserContext(t)
	var dialogs []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if d, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			dialogs = append(dialogs, d.Message)
			go func() { _ = chromedp.Run(ctx, cdppage.HandleJavaScriptDialog(true)) }()
		}
	})
	var available, notice, status string
	require.NoError(t, chromedp.Run(ctx,
		signIn(s, "owner@example.com"),
		chromedp.Click(`a[href="/dashboard/balance"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="withdraw-form"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#amount`, "1.000,00", chromedp.ByQuery),
		chromedp.SendKeys(`#pix_key`, "+5561988880000", chromedp.ByQuery),
		chromedp.Click(`[data-testid="withdraw-submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="notice"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="notice"]`, &notice, chromedp.ByQuery),
		chromedp.Text(`[data-testid="balance-available"]`, &available, chromedp.ByQuery),
		chromedp.Click(`[data-testid="withdrawal-complete"]`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`[data-testid="withdrawal-complete"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="withdrawal-row"] [data-testid="status"]`, &status, chromedp.ByQuery),
	))
	require.Contains(t, notice, "Withdrawal of R$ 1.000,00 to +5561988880000 created")
	require.Equal(t, "R$ 1.029,70", available) // 1.980,20 + 49,50 - 1.000,00
	require.Equal(t, "completed", status)

	var refunded string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/payments/"+refundable),
		chromedp.Click(`[data-testid="refund-payment"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="refund"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="notice"]`, &refunded, chromedp.ByQuery),
	))
	require.Equal(t, "Refunded R$ 50,00 to the payer.", refunded)
	require.Equal(t, []string{"Refund R$ 50,00 to the payer? This cannot be undone."}, dialogs)
}
