package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/pix/calendar"
	"payments/store"
	"payments/web/webtest"
)

// Every page of the dashboard (owner's and support's) and of the checkout,
// with data on it, on a laptop and a phone: in Portuguese, no serious or
// critical axe-core violation, and nothing that scrolls sideways.
func TestBrowserEveryPageIsPortugueseAndAccessible(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			everyPage(t, vp)
		})
	}
}

func everyPage(t *testing.T, vp viewport) {
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	_, err := s.Store.CreateUser(context.Background(), "ajuda@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	recv := webtest.NewReceiver(t, nil)
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"name": "Pedidos", "events": []string{"payment.paid", "payment.refunded", "dispute.opened"}})
	paid := s.CreatePayment(map[string]any{"amount_cents": 25_000, "external_id": "pedido-77", "description": "Tênis",
		"metadata": map[string]any{"loja": "centro"},
		"customer": map[string]any{"name": "Maria Souza", "email": "maria@example.com", "document": "11.222.333/0001-81"}})
	paidID := paid["id"].(string)
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paidID + "/pay", Key: s.TestKey})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.TestKey, Body: map[string]any{"payment": paidID, "amount_cents": 5_000}})
	disputed := s.Fund(s.TestKey, 3_000)
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + disputed + "/dispute", Key: s.TestKey})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{"amount_cents": 1_000, "pix_key": "+5561988880000"}})
	due := calendar.Today(time.Now()).AddDays(5).String()
	dueCharge := s.CreatePayment(map[string]any{"amount_cents": 45_000, "external_id": "mensalidade", "due_date": due, "days_after_due": 10,
		"customer": map[string]any{"name": "Ana Lima", "email": "ana@example.com", "document": "529.982.247-25"},
		"fine":     map[string]any{"percent": "2.00"}, "interest": map[string]any{"percent_per_month": "1.00"},
		"discounts": map[string]any{"per_day_early": map[string]any{"amount_cents": 50}}})
	batch := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Body: map[string]any{
		"description": "Lote de março", "payments": []any{map[string]any{"amount_cents": 1_000, "external_id": "lote-1"}, map[string]any{"amount_cents": 0}}}})
	require.Equal(t, http.StatusCreated, batch.Status, "%s", batch.Body)
	subscription := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: map[string]any{
		"payer": map[string]any{"name": "Ana Lima", "document": "529.982.247-25"}, "contract": "ALUNO-42", "interval": "monthly",
		"start_date": due, "amount_cents": 49_000, "retry_policy": "three_in_seven_days", "journey": "authorization_with_first_payment"}})
	require.Equal(t, http.StatusCreated, subscription.Status, "%s", subscription.Body)
	s.Dispatcher.RunOnce(context.Background(), 10)
	var deliveryID string
	require.NoError(t, s.DB.NewRaw("SELECT id FROM webhook_deliveries LIMIT 1").Scan(context.Background(), &deliveryID))
	keys := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/test", Key: s.TestKey})
	require.Equal(t, http.StatusOK, keys.Status)

	// A pending invitation, for the team page and the invitee's page.
	setup := newBrowser(t, s)
	setup.login("dona@example.com", "correct-horse-battery")
	invited := setup.do("POST", "/dashboard/team/invitations", url.Values{"_csrf": {setup.csrf("/dashboard/team")},
		"email": {"convidada@example.com"}, "role": {"finance"}}, nil)
	require.Equal(t, http.StatusSeeOther, invited.status, invited.body)
	mails, err := s.Store.ClaimEmails(context.Background(), 100, time.Minute, "pages")
	require.NoError(t, err)
	var invitation string
	for _, m := range mails {
		if m.Kind == store.MailInvitation {
			invitation = m.Data["link"][len(s.URL):]
		}
	}
	require.NotEmpty(t, invitation)

	ctx := newBrowserContext(t, vp)
	visit := func(path, wait string) {
		t.Helper()
		require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(wait, chromedp.ByQuery)), path)
		checkPage(t, ctx, path)
	}
	visit("/login", `#email`)
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com")))
	visit("/dashboard/payments", `[data-testid="payments-table"]`)
	visit("/dashboard/payments?q=ninguem", `[data-testid="payments-empty"]`)
	visit("/dashboard/payments/new", `[data-testid="payment-form"]`)
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SendKeys(`#amount`, "dez", chromedp.ByQuery), chromedp.SendKeys(`#customer_document`, "123", chromedp.ByQuery),
		clickAndWait(`[data-testid="submit-payment"]`, `[data-testid="error-amount"]`)))
	checkPage(t, ctx, "new payment, with errors")
	visit("/dashboard/payments/"+dueCharge["id"].(string), `[data-testid="payment-due-today"]`)
	visit("/dashboard/payments?due=upcoming", `[data-testid="payment-due"]`)
	visit("/dashboard/payment_batches", `[data-testid="batches-table"]`)
	visit("/dashboard/payment_batches/"+batch.JSON(t)["id"].(string), `[data-testid="batch-items"]`)
	visit("/dashboard/subscriptions", `[data-testid="subscriptions-table"]`)
	visit("/dashboard/subscriptions/new", `[data-testid="subscription-form"]`)
	visit("/dashboard/subscriptions/"+subscription.JSON(t)["id"].(string), `[data-testid="subscription-code"]`)
	visit("/dashboard/payments/"+paidID, `[data-testid="refunds"]`)
	require.NoError(t, chromedp.Run(ctx, chromedp.SetValue(`#refund-amount`, "10,00", chromedp.ByQuery),
		clickAndWait(`[data-testid="refund-payment"]`, `[data-testid="confirmation"]`)))
	checkPage(t, ctx, "refund confirmation")
	visit("/dashboard/payments/"+disputed, `[data-testid="disputes"]`)
	visit("/dashboard/balance", `[data-testid="withdrawals"]`)
	visit("/dashboard/webhooks", `[data-testid="webhooks-list"]`)
	visit("/dashboard/webhooks/new", `[data-testid="webhook-form"]`)
	visit("/dashboard/webhooks/"+hook, `[data-testid="deliveries"]`)
	visit("/dashboard/webhooks/"+hook+"/edit", `[data-testid="webhook-form"]`)
	visit("/dashboard/webhooks/"+hook+"/deliveries/"+deliveryID, `[data-testid="attempt"]`)
	visit("/dashboard/webhooks/events", `[data-testid="catalog-event"]`)
	visit("/dashboard/api-keys", `[data-testid="keys-table"]`)
	var revokeRight, screen float64
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('[data-testid="revoke-key"]').getBoundingClientRect().right`, &revokeRight),
		chromedp.Evaluate(`document.documentElement.clientWidth`, &screen)))
	require.LessOrEqual(t, revokeRight, screen, "Revogar is on screen without scrolling the table")
	require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="revoke-key"]`, `[data-testid="confirmation"]`)))
	checkPage(t, ctx, "revoke confirmation")
	visit("/dashboard/webhooks/"+hook, `[data-testid="action-delete"]`)
	require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="action-delete"]`, `[data-testid="confirmation"]`)))
	checkPage(t, ctx, "delete webhook confirmation")
	visit("/dashboard/api-versions", `[data-testid="api-version"]`)
	visit("/dashboard/settings", `[data-testid="preferences-form"]`)
	visit("/dashboard/team", `[data-testid="invitations"]`)
	visit("/dashboard/audit", `[data-testid="audit-table"]`)
	visit("/dashboard/refunds", `[data-testid="list-filter"]`)
	visit("/dashboard/disputes?status=open", `[data-testid="list-filter"]`)
	visit("/dashboard/withdrawals", `[data-testid="list-filter"]`)
	_, err = s.Store.FoldRollups(context.Background()) // the maintenance jobs' every second
	require.NoError(t, err)
	visit("/dashboard/customers", `[data-testid="payer-row"]`)
	visit("/dashboard?period=30d", `[data-testid="chart-webhooks"]`)
	today := time.Now().In(brasilia(t)).Format(time.DateOnly)
	asked := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/reports", Key: s.TestKey,
		Body: map[string]any{"type": "ledger", "format": "xlsx", "from": today, "to": today}})
	require.Equal(t, http.StatusCreated, asked.Status, "%s", asked.Body)
	_, err = s.Reports.BuildNext(context.Background())
	require.NoError(t, err)
	visit("/dashboard/reports", `[data-testid="report-download"]`)
	visit("/dashboard/events?type=payment.paid", `[data-testid="event-delivery"]`)
	visit("/dashboard/security", `[data-testid="sessions"]`)
	require.NoError(t, chromedp.Run(ctx, clickAndWait(`[data-testid="totp-start"]`, `[data-testid="totp-qr"]`)))
	checkPage(t, ctx, "authenticator app enrollment")
	visit("/dashboard/verify?next=/dashboard/balance", `[data-testid="verify-form"]`)
	visit("/dashboard/nao-existe", `[data-testid="error-page"]`)

	support := newBrowserContext(t, vp)
	ctx = support
	require.NoError(t, chromedp.Run(ctx, signIn(s, "ajuda@example.com")))
	visit("/dashboard/support?q=Maria", `[data-testid="support-results"]`)
	visit("/dashboard/support?q=ALUNO-42", `[data-testid="support-subscriptions"]`)
	visit("/dashboard/support/payments/"+paidID, `[data-testid="timeline"]`)
	visit("/dashboard/support/deliveries/"+deliveryID, `[data-testid="attempt"]`)
	visit("/dashboard/settings", `[data-testid="preferences-form"]`)
	var masked string
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(s.URL+"/dashboard/support?q=11222333000181"),
		chromedp.Text(`[data-testid="support-document"]`, &masked, chromedp.ByQuery)))
	require.Equal(t, "**.222.333/0001-**", masked, "support finds by CNPJ and reads it masked")

	visitor := newBrowserContext(t, vp)
	ctx = visitor
	visit("/signup", `[data-testid="signup-form"]`)
	require.NoError(t, chromedp.Run(ctx, chromedp.SendKeys(`#document`, "123", chromedp.ByQuery),
		clickAndWait(`[data-testid="signup-submit"]`, `[data-testid="document-error"]`)))
	checkPage(t, ctx, "sign-up, with errors")
	visit("/password/forgot", `[data-testid="forgot-form"]`)
	visit("/password/reset?token=nao-vale", `[data-testid="message"]`)
	visit(invitation, `[data-testid="accept-form"]`)

	payer := newBrowserContext(t, vp)
	ctx = payer
	states := checkoutStates(t, s)
	for state, id := range states {
		visit("/pay/"+id, `[data-testid="checkout"][data-state="`+state+`"]`)
	}
	visit("/pay/"+states["paid"]+"/receipt", `[data-testid="receipt"]`)
	visit("/pay/"+dueCharge["id"].(string), `[data-testid="checkout-breakdown"]`)
	visit("/pay/subscriptions/"+subscription.JSON(t)["id"].(string), `[data-testid="subscription-qr"]`)
	visit("/pay/00000000-0000-7000-8000-000000000000", `[data-testid="error-page"]`)
	var links int
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('[data-testid="error-page"] a').length`, &links)))
	require.Zero(t, links, "a payer's error page has no way into the dashboard")
}

// checkoutStates makes a payment in each state a payer can find: pending,
// preparing (a live charge the PSP has not registered: its code is
// removed here), paid, expired, canceled, refunded.
func checkoutStates(t *testing.T, s *webtest.Server) map[string]string {
	t.Helper()
	create := func() string {
		return s.CreatePayment(map[string]any{"amount_cents": 4_990, "description": "Camiseta"})["id"].(string)
	}
	helper := func(id, action string) {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/" + action, Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	}
	out := map[string]string{"pending": create(), "preparing": create(), "paid": create(), "expired": create(), "canceled": create(), "refunded": create()}
	_, err := s.DB.NewRaw("UPDATE payments SET br_code = '', charge_state = 'registering' WHERE id = ?", out["preparing"]).Exec(context.Background())
	require.NoError(t, err)
	helper(out["paid"], "pay")
	helper(out["expired"], "expire")
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + out["canceled"], Key: s.TestKey}).Status)
	helper(out["refunded"], "pay")
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + out["refunded"] + "/refund", Key: s.TestKey}).Status)
	return out
}

// The checkout in each of its states, as a payer sees it: only a pending
// charge offers a QR and a code; it turns to paid, and to expired when its
// countdown ends, without a reload, and then stops asking.
func TestBrowserCheckoutStates(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ctx := newBrowserContext(t, viewports[1])
	want := map[string]string{"pending": "Aguardando o seu Pix", "preparing": "Preparando a cobrança", "paid": "Pagamento confirmado",
		"expired": "Esta cobrança expirou", "canceled": "Esta cobrança foi cancelada", "refunded": "Pagamento devolvido"}
	for state, id := range checkoutStates(t, s) {
		var status string
		var codes int
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(s.URL+"/pay/"+id),
			chromedp.WaitVisible(`[data-testid="checkout-status"]`, chromedp.ByQuery),
			chromedp.Text(`[data-testid="checkout-status"]`, &status, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid="checkout-qr"], [data-testid="checkout-brcode"], [data-testid="checkout-expiry"]').length`, &codes),
		), state)
		require.Contains(t, status, want[state], state)
		if state == "pending" {
			require.Equal(t, 3, codes)
		} else {
			require.Zero(t, codes, "%s: no QR, no code, no countdown", state)
		}
	}

	// Paid while the payer looks: the card turns without a reload.
	id := s.CreatePayment(map[string]any{"amount_cents": 1_500})["id"].(string)
	var copied string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/pay/"+id),
		chromedp.WaitVisible(`[data-testid="checkout-qr"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.sameDocument = true`, nil),
		chromedp.Click(`[data-testid="checkout-copy"]`, chromedp.ByQuery),
	))
	copied = clipboard(t, ctx)
	code := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey}).JSON(t)["pix"].(map[string]any)["br_code"]
	require.Equal(t, code, copied, "copy copies the Pix copia e cola")
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey})
	var same bool
	var polling int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(`[data-testid="checkout"][data-state="paid"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.sameDocument === true`, &same),
		chromedp.Evaluate(`document.querySelectorAll('[hx-trigger]').length`, &polling),
	))
	require.True(t, same, "no reload")
	require.Zero(t, polling, "a paid charge stops asking")

	// Expiring while the payer looks: at zero the code goes away at once.
	id = s.CreatePayment(map[string]any{"amount_cents": 1_500})["id"].(string)
	_, err := s.DB.NewRaw("UPDATE payments SET expires_at = now() + interval '3 seconds' WHERE id = ?", id).Exec(context.Background())
	require.NoError(t, err)
	var hidden bool
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/pay/"+id),
		chromedp.WaitVisible(`[data-testid="checkout-qr"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.sameDocument = true`, nil),
		chromedp.WaitNotVisible(`[data-testid="checkout-qr"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.sameDocument === true`, &hidden),
		chromedp.WaitVisible(`[data-testid="checkout"][data-state="expired"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[hx-trigger]').length`, &polling),
	))
	require.True(t, hidden)
	require.Zero(t, polling, "an expired charge stops asking")
	r := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/qr.png"})
	require.Equal(t, http.StatusNotFound, r.Status, "nor is its QR served any more")

	// A payer whose browser reads English gets English.
	en := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id, Headers: map[string]string{"Accept-Language": "en-US,en;q=0.9"}})
	require.Contains(t, string(en.Body), "This charge has expired")
	require.Contains(t, string(en.Body), `lang="en"`)
}
