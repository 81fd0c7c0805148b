package web_test

import (
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/pix/calendar"
	"payments/web/webtest"
)

// Pix Automático live, on a phone 390 px wide: the merchant makes a
// subscription in the dashboard (live mode) and sees the payer's QR and
// link; the payer opens the link, reads what they authorize, takes the code
// to the PSP sandbox's bank, which shows the authorization (receiver,
// amount, periodicity) and approves it with the first payment; the
// dashboard shows it active with its first cycle paid; later the payer
// cancels it in their bank, and the dashboard says the payer did.
func TestBrowserLiveSubscriptionAtThePayersBank(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	ctx := newBrowserContext(t, viewports[1])
	// The bank asks "are you sure?" before a cancellation: the payer says yes.
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			go func() { _ = chromedp.Run(ctx, cdppage.HandleJavaScriptDialog(true)) }()
		}
	})
	start := calendar.Today(time.Now()).AddDays(3)
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com"),
		chromedp.Navigate(s.URL+"/dashboard/subscriptions/new"),
		// The test-mode page has the same form: wait for the live one's badge.
		clickAndWait(`[data-testid="switch-mode"]`, `[data-testid="mode"].bg-emerald-100`),
		chromedp.WaitVisible(`#payer_name`, chromedp.ByQuery),
		chromedp.SendKeys(`#payer_name`, "Ana Lima", chromedp.ByQuery),
		chromedp.SendKeys(`#payer_document`, "529.982.247-25", chromedp.ByQuery),
		chromedp.SendKeys(`#contract`, "ALUNO-0042", chromedp.ByQuery),
		chromedp.SendKeys(`#description`, "Mensalidade escolar", chromedp.ByQuery),
		chromedp.SetValue(`#start_date`, start.String(), chromedp.ByQuery),
		chromedp.SendKeys(`#amount`, "490,00", chromedp.ByQuery),
		chromedp.SetValue(`#journey`, "authorization_with_first_payment", chromedp.ByQuery),
		clickAndWait(`[data-testid="submit-subscription"]`, `[data-testid="subscription-code"] img`)))
	var mode, link string
	require.NoError(t, chromedp.Run(ctx, chromedp.Text(`[data-testid="mode"]`, &mode, chromedp.ByQuery),
		chromedp.AttributeValue(`[data-testid="subscription-link"]`, "href", &link, nil, chromedp.ByQuery)))
	require.Equal(t, "Modo real", strings.TrimSpace(mode))
	checkPage(t, ctx, "live subscription awaiting its payer")
	var dashboardPage string
	require.NoError(t, chromedp.Run(ctx, chromedp.Location(&dashboardPage)))

	// The payer's page says what they authorize, and leads to their bank.
	var terms, bank, via string
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(link),
		chromedp.WaitVisible(`[data-testid="subscription-qr"] img`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="subscription-terms"]`, &terms, chromedp.ByQuery),
		chromedp.Text(`[data-testid="payer-via"]`, &via, chromedp.ByQuery),
		chromedp.AttributeValue(`[data-testid="subscription-sandbox-authorize"]`, "href", &bank, nil, chromedp.ByQuery)))
	require.Contains(t, terms, "R$ 490,00")
	require.Contains(t, terms, "Mensal")
	require.Equal(t, "via Pagamentos: é o nome que o seu banco mostra como recebedor", via)
	checkPage(t, ctx, "payer's authorization page (live)")

	var receiver, amount, periodicity, first, message string
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(bank),
		clickAndWait(`[data-testid="pay"]`, `[data-testid="approve"]`),
		chromedp.Text(`[data-testid="receiver"]`, &receiver, chromedp.ByQuery),
		chromedp.Text(`[data-testid="amount"]`, &amount, chromedp.ByQuery),
		chromedp.Text(`[data-testid="periodicity"]`, &periodicity, chromedp.ByQuery),
		chromedp.Text(`[data-testid="first-payment"]`, &first, chromedp.ByQuery)))
	require.Equal(t, "Pagamentos", receiver, "the bank names the key's holder, as the payer's page said")
	require.Equal(t, "R$ 490,00 por cobrança", amount)
	require.Equal(t, "Mensal", periodicity)
	require.Equal(t, "R$ 490,00, agora", first, "the QR composto pays the first cycle as it authorizes")
	checkNoSideScroll(t, ctx, "the bank's authorization")
	var authorization string
	require.NoError(t, chromedp.Run(ctx, chromedp.Location(&authorization),
		clickAndWait(`[data-testid="approve"]`, `[data-testid="message"]`),
		chromedp.Text(`[data-testid="message"]`, &message, chromedp.ByQuery)))
	require.Equal(t, "Autorização concedida.", message)
	require.NoError(t, chromedp.Run(ctx, chromedp.WaitVisible(`[data-testid="cancel"]`, chromedp.ByQuery)))
	checkNoSideScroll(t, ctx, "the bank's authorization, granted")

	status := func(want string) {
		t.Helper()
		var got string
		require.Eventually(t, func() bool {
			err := chromedp.Run(ctx, chromedp.Navigate(dashboardPage),
				chromedp.AttributeValue(`h1 + [data-testid="status"]`, "data-status", &got, nil, chromedp.ByQuery))
			return err == nil && got == want
		}, 20*time.Second, 200*time.Millisecond, "the dashboard never showed %s (last %s)", want, got)
	}
	status("active")
	// The authorization and the first cycle's Pix reach the service as two
	// callbacks: the cycle may be paid a moment after the subscription is
	// active.
	var cycle string
	require.Eventually(t, func() bool {
		err := chromedp.Run(ctx, chromedp.Navigate(dashboardPage),
			chromedp.AttributeValue(`[data-testid="cycle-row"]`, "data-status", &cycle, nil, chromedp.ByQuery))
		return err == nil && cycle == "paid"
	}, 20*time.Second, 200*time.Millisecond, "the first cycle paid with the authorization (last %s)", cycle)
	checkPage(t, ctx, "live subscription, active")

	// Later the payer cancels it in their bank.
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(authorization),
		clickAndWait(`[data-testid="cancel"]`, `[data-testid="message"]`),
		chromedp.Text(`[data-testid="message"]`, &message, chromedp.ByQuery)))
	require.Equal(t, "Autorização cancelada.", message)
	status("canceled")
	var by string
	require.NoError(t, chromedp.Run(ctx, chromedp.Text(`[data-testid="subscription-canceled-by"]`, &by, chromedp.ByQuery)))
	require.Equal(t, "O pagador, no banco dele", strings.TrimSpace(by))
	checkPage(t, ctx, "live subscription, canceled by its payer")
}

// The same journey in test mode, on a phone 390 px wide: made in the
// dashboard, the payer's page, then the payer's bank's answers simulated
// (authorized with the first payment, a cycle refused for balance and paid
// on its retry), and canceled by the merchant after confirming.
func TestBrowserTestSubscriptionInTheDashboard(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	ctx := newBrowserContext(t, viewports[1])
	start := calendar.Today(time.Now()).AddDays(3)
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com"),
		chromedp.Navigate(s.URL+"/dashboard/subscriptions/new"),
		chromedp.WaitVisible(`#payer_name`, chromedp.ByQuery),
		chromedp.SendKeys(`#payer_name`, "Ana Lima", chromedp.ByQuery),
		chromedp.SendKeys(`#payer_document`, "529.982.247-25", chromedp.ByQuery),
		chromedp.SendKeys(`#contract`, "ALUNO-0042", chromedp.ByQuery),
		chromedp.SetValue(`#start_date`, start.String(), chromedp.ByQuery),
		chromedp.SendKeys(`#amount`, "490,00", chromedp.ByQuery),
		clickAndWait(`[data-testid="submit-subscription"]`, `[data-testid="subscription-code"] img`)))
	checkPage(t, ctx, "test subscription awaiting its payer")
	var link, page string
	require.NoError(t, chromedp.Run(ctx, chromedp.Location(&page),
		chromedp.AttributeValue(`[data-testid="subscription-link"]`, "href", &link, nil, chromedp.ByQuery)))
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(link), chromedp.WaitVisible(`[data-testid="subscription-qr"] img`, chromedp.ByQuery)))
	checkPage(t, ctx, "payer's authorization page (test)")

	step := func(button, next string) {
		t.Helper()
		require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(page), clickAndWait(`[data-testid="`+button+`"]`, next)))
	}
	step("simulate-authorize", `[data-testid="simulate-fail"]`)
	step("simulate-fail", `[data-testid="cycle-row"][data-status="retrying"]`)
	checkPage(t, ctx, "a cycle being retried")
	step("simulate-pay", `[data-testid="cycle-row"][data-status="paid"]`)
	var rows int
	// The page before the click has a paid row already (the first cycle):
	// the retried one is paid once no row is retrying on the new page.
	require.NoError(t, chromedp.Run(ctx, chromedp.WaitNotPresent(`[data-testid="cycle-row"][data-status="retrying"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="cycle-row"][data-status="paid"]').length`, &rows)))
	require.Equal(t, 2, rows, "the first cycle and the retried one, paid")
	step("cancel-subscription", `[data-testid="confirmation"]`)
	checkPage(t, ctx, "cancel a subscription: confirmation")
	var status string
	require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="confirm"]`, `[data-testid="subscription-canceled-by"]`),
		chromedp.AttributeValue(`h1 + [data-testid="status"]`, "data-status", &status, nil, chromedp.ByQuery)))
	require.Equal(t, "canceled", status)
	checkPage(t, ctx, "test subscription, canceled")
}
