package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/dispatcher/signature"
	"payments/web/webtest"
)

// A merchant who reads only Portuguese, in Chromium, on a laptop and on a
// phone: sign in, create a webhook and copy its secret, send a test, find
// a given order's delivery and resend it, refund, withdraw. Every page on
// the way is in Portuguese (no English word, no raw code) and passes
// axe-core with no serious or critical violation.
func TestBrowserMerchantInPortuguese(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			merchantFlow(t, vp)
		})
	}
}

func merchantFlow(t *testing.T, vp viewport) {
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	recv := webtest.NewReceiver(t, nil)
	ctx := newBrowserContext(t, vp)

	// Sign in.
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(s.URL+"/login"), chromedp.WaitVisible(`#email`, chromedp.ByQuery)))
	checkPage(t, ctx, "login")
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com")))
	checkPage(t, ctx, "payments, empty")

	// Create a webhook and copy its secret.
	var secret string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/webhooks"), chromedp.WaitVisible(`[data-testid="webhooks-empty"]`, chromedp.ByQuery)))
	checkPage(t, ctx, "webhooks, none")
	require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="create-webhook"]`, `[data-testid="webhook-form"]`)))
	checkPage(t, ctx, "new webhook")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SendKeys(`#name`, "Sistema de pedidos", chromedp.ByQuery),
		chromedp.SendKeys(`#url`, recv.URL+"/ganchos", chromedp.ByQuery),
		clickAndWait(`[data-testid="submit-webhook"]`, `[data-testid="new-secret"]`),
		chromedp.Text(`[data-testid="new-secret"]`, &secret, chromedp.ByQuery),
	))
	checkPage(t, ctx, "webhook, secret shown once")
	var copied string
	require.NoError(t, chromedp.Run(ctx, chromedp.Click(`[data-testid="copy-secret"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//button[@data-testid="copy-secret"][contains(., "Copiado")]`)))
	copied = clipboard(t, ctx)
	require.Equal(t, secret, copied, "the copy button copies the secret")
	require.True(t, strings.HasPrefix(secret, "whsec_"))

	// Send a test of the event chosen.
	var result string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SetValue(`[data-testid="test-event"]`, "payment.paid", chromedp.ByQuery),
		clickAndWait(`[data-testid="send-test"]`, `[data-testid="test-result"]`),
		chromedp.Text(`[data-testid="test-result"]`, &result, chromedp.ByQuery),
	))
	require.Contains(t, result, "Teste de “Pagamento confirmado” entregue: HTTP 200")
	checkPage(t, ctx, "webhook, test sent")
	got := recv.WaitFor(1, 5*time.Second)
	require.NoError(t, signature.Verify(got[0].Body, got[0].Header.Get("X-Service-Signature"), secret, signature.DefaultTolerance),
		"the test is signed with the secret the page showed")

	// A real order is paid; find its delivery by the order number and resend it.
	order := s.CreatePayment(map[string]any{"amount_cents": 12_990, "external_id": "pedido-1001", "description": "Camiseta",
		"customer": map[string]any{"name": "Maria Souza", "email": "maria@example.com", "document": "529.982.247-25"}})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + order["id"].(string) + "/pay", Key: s.TestKey})
	other := s.CreatePayment(map[string]any{"amount_cents": 500, "external_id": "pedido-1002"})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + other["id"].(string) + "/pay", Key: s.TestKey})
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 10))
	var rows int
	var about string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Reload(), chromedp.WaitVisible(`#dq`, chromedp.ByQuery),
		chromedp.SendKeys(`#dq`, "pedido-1001", chromedp.ByQuery),
		chromedp.Submit(`[data-testid="delivery-filters"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//a[@href and contains(., "Limpar filtros")]`),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="delivery"]').length`, &rows),
		chromedp.Text(`[data-testid="delivery-about"]`, &about, chromedp.ByQuery),
	))
	require.Equal(t, 1, rows, "one delivery for that order")
	require.Contains(t, about, "pedido-1001")
	require.Contains(t, about, "R$ 129,90")
	checkPage(t, ctx, "delivery console, searched")
	require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="delivery-link"]`, `[data-testid="attempt"]`)))
	checkPage(t, ctx, "delivery")
	var headers string
	require.NoError(t, chromedp.Run(ctx, chromedp.Text(`[data-testid="attempt-request-headers"]`, &headers, chromedp.ByQuery)))
	require.Contains(t, headers, "X-Service-Event")
	require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="resend"]`, `[data-testid="notice"]`)))
	checkPage(t, ctx, "delivery, resent")
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	require.Len(t, recv.WaitFor(4, 5*time.Second), 4, "test, two orders, and the resend")

	// Refund part of the order: the confirmation says how much, in words, and to whom.
	var summary, notice string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/payments/"+order["id"].(string)),
		chromedp.WaitVisible(`[data-testid="refund-form"]`, chromedp.ByQuery),
	))
	checkPage(t, ctx, "payment")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Evaluate(`document.querySelector('#refund-amount').value = ''`, nil),
		chromedp.SendKeys(`#refund-amount`, "29,90", chromedp.ByQuery),
		clickAndWait(`[data-testid="refund-payment"]`, `[data-testid="confirmation"]`),
		chromedp.Text(`[data-testid="confirm-summary"]`, &summary, chromedp.ByQuery),
	))
	require.Contains(t, summary, "R$ 29,90")
	require.Contains(t, summary, "vinte e nove reais e noventa centavos")
	require.Contains(t, summary, "Maria Souza · 529.982.247-25")
	checkPage(t, ctx, "refund confirmation")
	require.NoError(t, chromedp.Run(ctx,
		clickAndWait(`[data-testid="confirm"]`, `[data-testid="notice"]`),
		chromedp.Text(`[data-testid="notice"]`, &notice, chromedp.ByQuery),
	))
	require.Equal(t, "Devolução de R$ 29,90 concluída.", notice)
	checkPage(t, ctx, "payment, refunded in part")

	// Withdraw: the confirmation states the amount in words and the key.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/balance"), chromedp.WaitVisible(`[data-testid="withdraw-form"]`, chromedp.ByQuery)))
	checkPage(t, ctx, "balance")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SendKeys(`#amount`, "50,00", chromedp.ByQuery),
		chromedp.SendKeys(`#pix_key`, "52998224725", chromedp.ByQuery),
		clickAndWait(`[data-testid="withdraw-submit"]`, `[data-testid="confirmation"]`),
		chromedp.Text(`[data-testid="confirm-summary"]`, &summary, chromedp.ByQuery),
	))
	require.Contains(t, summary, "cinquenta reais")
	require.Contains(t, summary, "529.982.247-25 (CPF)")
	checkPage(t, ctx, "withdrawal confirmation")
	require.NoError(t, chromedp.Run(ctx,
		clickAndWait(`[data-testid="confirm"]`, `[data-testid="notice"]`),
		chromedp.Text(`[data-testid="notice"]`, &notice, chromedp.ByQuery),
	))
	require.Contains(t, notice, "Saque de R$ 50,00 para 529.982.247-25 criado")
	checkPage(t, ctx, "balance, withdrawn")
	var withdrawals int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM withdrawals").Scan(context.Background(), &withdrawals))
	require.Equal(t, 1, withdrawals)
	require.Equal(t, http.StatusOK, s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).Status)
}
