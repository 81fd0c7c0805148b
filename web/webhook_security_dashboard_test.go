package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// The dashboard creates an ed25519 webhook: no secret is revealed, its
// page shows the public key the API gives, and a rotation (confirmed)
// names the new key; the event catalog shows both verifiers.
func TestDashboardEd25519Webhook(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	form := b.do("GET", "/dashboard/webhooks/new", nil, nil)
	require.Equal(t, "hmac-sha256", form.doc.Find(`input[name="signature_algorithm"][checked]`).AttrOr("value", ""), "HMAC is the default")

	r := b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"},
		"signature_algorithm": {"ed25519"}, "secret": {"my-own-secret-of-32-characters!!"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="error-secret"]`).Text(), "HMAC-SHA256")
	require.Equal(t, "ed25519", r.doc.Find(`input[name="signature_algorithm"][checked]`).AttrOr("value", ""), "the choice is kept")

	r = b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"},
		"signature_algorithm": {"ed25519"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	detail := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Zero(t, detail.doc.Find(`[data-testid="new-secret"]`).Length(), "the signing key is never shown")
	hooks := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks", Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, hooks, 1)
	hook := hooks[0].(map[string]any)
	require.Equal(t, "ed25519", hook["signature_algorithm"])
	require.Equal(t, hook["public_key"], detail.doc.Find(`[data-testid="public-key"]`).Text())
	require.Equal(t, "Ed25519 (chave pública)", detail.doc.Find(`[data-testid="signature-algorithm"]`).Text())

	id := hook["id"].(string)
	confirm := b.do("POST", "/dashboard/webhooks/"+id+"/rotate", url.Values{"_csrf": {token}}, nil)
	require.Equal(t, http.StatusOK, confirm.status)
	require.Contains(t, confirm.doc.Text(), hook["public_key"].(string), "the confirmation names the key being replaced")
	done := b.do("POST", "/dashboard/webhooks/"+id+"/rotate", url.Values{"_csrf": {token}, "confirmed": {"1"}}, nil)
	require.Equal(t, http.StatusSeeOther, done.status)
	after := b.do("GET", done.header.Get("Location"), nil, nil)
	rotated := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)
	require.NotEqual(t, hook["public_key"], rotated["public_key"])
	require.Contains(t, after.doc.Find(`[data-testid="notice"]`).Text(), rotated["public_key"].(string))
	require.Equal(t, rotated["public_key"], after.doc.Find(`[data-testid="public-key"]`).Text())
	n, err := s.Store.CountWebhooks(context.Background(), s.Account.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	catalog := b.do("GET", "/dashboard/webhooks/events", nil, nil)
	require.Contains(t, catalog.doc.Find(`[data-testid="verify-hmac"]`).Text(), `crypto.createHmac("sha256", secret)`)
	require.Contains(t, catalog.doc.Find(`[data-testid="verify-ed25519"]`).Text(), `crypto.verify(null, signed, key`)
}

// A receiver's Retry-After shows in the console: the webhook's health
// panel says until when it is paused, the delivery why it waits.
func TestDashboardShowsRetryAfterPause(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "600")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	id, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/webhooks/"+id, nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.doc.Find(`[data-testid="health-paused"]`).Text(), "Retry-After")
	require.Equal(t, "a pedido do receptor (Retry-After)", page.doc.Find(`[data-testid="delivery-retry-after"]`).Text())
}
