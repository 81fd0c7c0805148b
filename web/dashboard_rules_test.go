package web_test

import (
	"context"
	"net/http"
	"net/url"
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
		require.NotEmpty(t, r.doc.Find(`[data-testid="`+field+`-error"]`).Text(), field)
	}
	require.Zero(t, webhooks(), "nothing stored")

	viewer := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, viewer.login("leitor@example.com", "correct-horse-battery").status)
	r := viewer.do("GET", "/dashboard/webhooks/new", nil, nil)
	require.Equal(t, http.StatusForbidden, r.status)
	require.Zero(t, r.doc.Find(`[data-testid="webhook-form"]`).Length())
}

// The API refuses what the operation refuses, whoever calls it: no event,
// an unknown envelope version.
func TestTheWebhookOperationChecksItsWholeInput(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	for param, body := range map[string]map[string]any{
		"events":      {"url": "https://example.com/a", "events": []string{}},
		"api_version": {"url": "https://example.com/a", "events": []string{"payment.paid"}, "api_version": "v3"},
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", param, r.Body)
		require.Equal(t, param, r.ErrorParam(t))
	}
}
