package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// A page with something under way follows it: a pending refund turns
// succeeded on the payment's page, and a webhook's deliveries show the
// test just sent, without the person reloading; once nothing is pending,
// the page stops asking.
func TestBrowserPendingPagesUpdateThemselves(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	id := s.Fund(s.TestKey, 10_000)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.TestKey, Body: map[string]any{"payment": id, "amount_cents": 2_500}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	refundID := r.JSON(t)["id"].(string)
	recv := webtest.NewReceiver(t, nil)
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.paid"}})

	ctx := newBrowserContext(t, viewports[1])
	var status string
	var updating int
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com"),
		chromedp.Navigate(s.URL+"/dashboard/payments/"+id),
		chromedp.WaitVisible(`[data-testid="refund"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="self-updating"]').length`, &updating),
		chromedp.AttributeValue(`[data-testid="refund"] [data-testid="status"]`, "data-status", &status, nil, chromedp.ByQuery)))
	require.Equal(t, "pending", status)
	require.Equal(t, 1, updating, "a page with a pending refund follows it")

	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/refunds/" + refundID + "/succeed", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(`[data-testid="refund"] [data-testid="status"][data-status="succeeded"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`h1 + [data-testid="status"][data-status="partially_refunded"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="self-updating"]').length`, &updating)))
	require.Zero(t, updating, "nothing pending: the page stops asking")
	checkCSP(t, ctx, "payment page after updating itself")

	var rows int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/webhooks/"+hook),
		chromedp.WaitVisible(`[data-testid="send-test"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="delivery"]').length`, &rows)))
	require.Zero(t, rows)
	ctxT, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Run(ctxT,
		chromedp.Click(`[data-testid="send-test"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="test-result"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="delivery"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="test-result"]').length`, &rows)))
	require.Equal(t, 1, rows, "the test's result stays while the deliveries reload")
	checkCSP(t, ctx, "webhook page after a test send")
}
