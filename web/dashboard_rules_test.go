package web_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// The dashboard refuses what the API refuses: an unknown envelope version
// or signature algorithm is an error beside its field (it used to become
// v2 and HMAC), nothing stored; and a viewer is shown no webhook form at
// all (it could not submit it).
func TestTheDashboardsWebhookFormKeepsTheAPIsRules(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	_, err := s.Store.CreateUser(context.Background(), "leitor@example.com", "correct-horse-battery", store.RoleViewer, s.Account.ID)
	require.NoError(t, err)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	webhooks := func() int {
		var n int
		require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM webhooks`).Scan(context.Background(), &n))
		return n
	}
	for field, form := range map[string]url.Values{
		"api_version":         {"api_version": {"v9"}, "signature_algorithm": {"hmac-sha256"}},
		"signature_algorithm": {"api_version": {"v2"}, "signature_algorithm": {"rsa-sha1"}},
	} {
		form.Set("_csrf", b.csrf("/dashboard/webhooks/new"))
		form.Set("url", "https://example.com/hook")
		form.Set("events", "payment.paid")
		r := b.do("POST", "/dashboard/webhooks", form, nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s: %s", field, r.body)
		require.NotEmpty(t, r.doc.Find(`[data-testid="error-`+field+`"]`).Text(), field)
	}
	require.Zero(t, webhooks(), "nothing stored")

	viewer := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, viewer.login("leitor@example.com", "correct-horse-battery").status)
	r := viewer.do("GET", "/dashboard/webhooks/new", nil, nil)
	require.Equal(t, http.StatusForbidden, r.status)
	require.Zero(t, r.doc.Find(`[data-testid="webhook-form"]`).Length())
}

// Every webhook rule is the operation's: the API and the dashboard refuse
// the same inputs, naming the same field, and the dashboard shows every
// refusal of one post at once.
func TestTheWebhookOperationChecksItsWholeInput(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithoutPrivateNetworks())
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	long := strings.Repeat("n", store.MaxWebhookName+1)
	for _, c := range []struct {
		field string
		api   map[string]any
		form  url.Values
	}{
		{"name", map[string]any{"name": long}, url.Values{"name": {long}}},
		{"url", map[string]any{"url": "http://10.0.0.1/hook"}, url.Values{"url": {"http://10.0.0.1/hook"}}},
		{"api_version", map[string]any{"api_version": "v3"}, url.Values{"api_version": {"v3"}}},
		{"events", map[string]any{"events": []string{}}, url.Values{"events": nil}},
		{"events", map[string]any{"events": []string{"payment.lost"}}, url.Values{"events": {"payment.lost"}}},
		{"rate_limit", map[string]any{"rate_limit": store.MaxRateLimit + 1}, url.Values{"rate_limit": {fmt.Sprint(store.MaxRateLimit + 1)}}},
		{"secret", map[string]any{"secret": "whsk_0123456789abcdefghij"}, url.Values{"secret": {"whsk_0123456789abcdefghij"}}},
		{"secret", map[string]any{"secret": "a-custom-secret-of-ours", "signature_algorithm": "ed25519"},
			url.Values{"secret": {"a-custom-secret-of-ours"}, "signature_algorithm": {"ed25519"}}},
		{"signature_algorithm", map[string]any{"signature_algorithm": "rsa-sha1"}, url.Values{"signature_algorithm": {"rsa-sha1"}}},
	} {
		body := map[string]any{"url": "https://example.com/hook", "events": []string{"payment.paid"}}
		maps.Copy(body, c.api)
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", c.field, r.Body)
		param, _, _ := strings.Cut(r.ErrorParam(t), "[")
		require.Equal(t, c.field, param, r.Body)

		form := url.Values{"_csrf": {b.csrf("/dashboard/webhooks/new")}, "url": {"https://example.com/hook"}, "events": {"payment.paid"}}
		for k, v := range c.form {
			form[k] = v
		}
		page := b.do("POST", "/dashboard/webhooks", form, nil)
		require.Equal(t, http.StatusUnprocessableEntity, page.status, "%s: %s", c.field, page.body)
		require.NotEmpty(t, page.doc.Find(`[data-testid="error-`+c.field+`"]`).Text(), "%s: %s", c.field, page.body)
	}
	n, err := s.Store.CountWebhooks(context.Background(), s.Account.ID)
	require.NoError(t, err)
	require.Zero(t, n, "nothing stored")

	// One post with several mistakes shows each beside its field.
	page := b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {b.csrf("/dashboard/webhooks/new")},
		"name": {long}, "url": {"ftp://example.com"}, "api_version": {"v3"}, "rate_limit": {"5000"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, page.status)
	for _, field := range []string{"name", "url", "api_version", "events", "rate_limit"} {
		require.NotEmpty(t, page.doc.Find(`[data-testid="error-`+field+`"]`).Text(), field)
	}
}
