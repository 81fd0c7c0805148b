package web_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/dispatcher/signature"
	"payments/store"
	"payments/web/webtest"
)

const chromiumPath = "/usr/bin/chromium"

// newBrowserContext starts headless Debian Chromium for one test.
func newBrowserContext(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s is missing: `make test` installs it (apt-get install chromium)", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

func signIn(s *webtest.Server, email string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(s.URL + "/login"),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery),
		chromedp.SendKeys(`#email`, email, chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct-horse-battery", chromedp.ByQuery),
		chromedp.Submit(`[data-testid="login-form"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="user-email"]`, chromedp.ByQuery),
	}
}

// TestBrowserWebhookLifecycle: sign in, create a webhook and see its secret
// once (gone after a reload), send a test to a live local receiver and see
// the 200, then fill the account to the cap and see the refusal.
func TestBrowserWebhookLifecycle(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	recv := webtest.NewReceiver(t, nil)
	ctx := newBrowserContext(t)

	var secret, hint, result string
	var revealGone bool
	require.NoError(t, chromedp.Run(ctx,
		signIn(s, "owner@example.com"),
		chromedp.Navigate(s.URL+"/dashboard/webhooks/new"),
		chromedp.WaitVisible(`[data-testid="webhook-form"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#name`, "Orders", chromedp.ByQuery),
		chromedp.SendKeys(`#url`, recv.URL+"/hooks", chromedp.ByQuery),
		chromedp.Click(`[data-testid="submit-webhook"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="new-secret"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="new-secret"]`, &secret, chromedp.ByQuery),
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid="secret-hint"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="secret-hint"]`, &hint, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('[data-testid="secret-reveal"]') === null`, &revealGone),
		chromedp.Click(`[data-testid="send-test"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="test-result"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="test-result"]`, &result, chromedp.ByQuery),
	))
	require.True(t, strings.HasPrefix(secret, "whsec_"), secret)
	require.True(t, revealGone, "the secret is shown once; after a reload it is gone")
	require.Equal(t, "whsec_…"+secret[len(secret)-4:], hint)
	require.Contains(t, result, "HTTP 200")
	got := recv.Requests()
	require.Len(t, got, 1)
	require.NoError(t, signature.Verify(got[0].Body, got[0].Header.Get("X-Service-Signature"), secret, signature.DefaultTolerance),
		"the test event is signed with the secret the page showed")

	// A real event: the delivery shows the signed request and the response.
	paid := s.CreatePayment(map[string]any{"amount_cents": 990})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/pay", Key: s.TestKey})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	var request, response string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid="delivery"] summary`, chromedp.ByQuery),
		chromedp.Click(`[data-testid="delivery"] summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="attempt-request"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="attempt-request"]`, &request, chromedp.ByQuery),
		chromedp.Text(`[data-testid="attempt-response"]`, &response, chromedp.ByQuery),
	))
	delivered := recv.Requests()[1]
	require.Contains(t, request, "X-Service-Signature: "+delivered.Header.Get("X-Service-Signature"))
	require.Contains(t, request, "X-Service-Event: payment.paid")
	require.Contains(t, request, string(delivered.Body))
	require.Contains(t, response, "ok")

	// Fill the account to the cap (test and live count together), then try once more.
	for i := 1; i < store.MaxWebhooksPerAccount; i++ {
		key := s.TestKey
		if i%2 == 0 {
			key = s.LiveKey
		}
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: key,
			Body: map[string]any{"url": "https://example.com/hook", "events": []string{"payment.paid"}}})
		require.Equal(t, http.StatusCreated, r.Status)
	}
	var capText string
	var createLinks int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/webhooks"),
		chromedp.WaitVisible(`[data-testid="webhook-cap"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="webhook-cap"]`, &capText, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="create-webhook"]').length`, &createLinks),
	))
	require.Contains(t, capText, "20 of 20")
	require.Zero(t, createLinks, "no create button at the cap")
}

// TestBrowserSimulatedPaymentFlipsCheckout: the payer's checkout page is
// open in one tab; the owner simulates the payment in another; the checkout
// page flips to paid by itself (htmx polling), and the payment's timeline
// shows payment.paid with its delivery.
func TestBrowserSimulatedPaymentFlipsCheckout(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithRunningDispatcher())
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	recv := webtest.NewReceiver(t, nil)
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.paid"}})
	p := s.CreatePayment(map[string]any{"amount_cents": 4990, "description": "Camiseta", "expires_in": 3600})
	id := p["id"].(string)

	payer := newBrowserContext(t)
	var before, amount, brcode string
	require.NoError(t, chromedp.Run(payer,
		chromedp.Navigate(s.URL+"/pay/"+id),
		chromedp.WaitVisible(`[data-testid="checkout-qr"]`, chromedp.ByQuery),
		chromedp.AttributeValue(`[data-testid="checkout-status"]`, "data-status", &before, nil, chromedp.ByQuery),
		chromedp.Text(`[data-testid="checkout-amount"]`, &amount, chromedp.ByQuery),
		chromedp.Value(`[data-testid="checkout-brcode"]`, &brcode, chromedp.ByQuery),
	))
	require.Equal(t, "pending", before)
	require.Equal(t, "R$ 49,90", amount)
	require.Equal(t, p["pix"].(map[string]any)["br_code"], brcode)

	owner, cancel := chromedp.NewContext(payer) // a second tab in the same browser
	defer cancel()
	var timeline []string
	require.NoError(t, chromedp.Run(owner,
		signIn(s, "owner@example.com"),
		chromedp.Navigate(s.URL+"/dashboard/payments/"+id),
		chromedp.Click(`[data-testid="simulate-payment"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-event-type="payment.paid"]`, chromedp.ByQuery),
	))

	var after, message string
	require.NoError(t, chromedp.Run(payer,
		chromedp.WaitVisible(`[data-testid="checkout-status"][data-status="paid"]`, chromedp.ByQuery),
		chromedp.AttributeValue(`[data-testid="checkout-status"]`, "data-status", &after, nil, chromedp.ByQuery),
		chromedp.Text(`[data-testid="checkout-status"]`, &message, chromedp.ByQuery),
	))
	require.Equal(t, "paid", after)
	require.Contains(t, message, "Paid")

	require.Len(t, recv.WaitFor(1, 10*time.Second), 1, "payment.paid reached the webhook")
	require.NoError(t, chromedp.Run(owner,
		chromedp.Reload(),
		chromedp.WaitVisible(`[data-testid="event-delivery"]`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="event"]')].map(e => e.dataset.eventType)`, &timeline),
	))
	require.Equal(t, []string{"payment.created", "payment.paid"}, timeline)

	// A support user, in a browser of their own, finds the payment by its id and
	// sees its deliveries, with nothing to press.
	_, err := s.Store.CreateUser(context.Background(), "help@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	support := newBrowserContext(t)
	var deliveries, buttons int
	var mode string
	require.NoError(t, chromedp.Run(support,
		signIn(s, "help@example.com"),
		chromedp.SendKeys(`#q`, id, chromedp.ByQuery),
		chromedp.Submit(`[data-testid="support-search"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="support-row"]`, chromedp.ByQuery),
		chromedp.Click(`[data-testid="support-row"] a`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="timeline"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="event-delivery"]').length`, &deliveries),
		chromedp.Evaluate(`document.querySelectorAll('main form, main button').length`, &buttons),
		chromedp.Text(`[data-testid="mode"]`, &mode, chromedp.ByQuery),
	))
	require.Equal(t, 1, deliveries)
	require.Zero(t, buttons, "read-only: no form or button on the page")
	require.Equal(t, "Support · read-only", mode)
}
