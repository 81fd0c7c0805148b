package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// The dashboard and the API hold a webhook URL to one rule: a URL too long,
// or a link-local or metadata address even with private networks allowed
// for development, is refused by both; an internationalized host is stored
// in punycode by both.
func TestWebhookURLIsOneRuleForBothDoors(t *testing.T) {
	t.Parallel()
	s := webtest.New(t) // the development flag is on: test receivers listen on loopback
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	viaForm := func(u string) page {
		return b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {u}, "name": {"X"}, "events": {"payment.paid"}}, nil)
	}
	viaAPI := func(u string) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{"url": u, "events": []string{"payment.paid"}}})
	}
	for _, bad := range []string{
		"https://example.com/" + strings.Repeat("a", 3_000),
		"http://169.254.169.254/latest/meta-data",
		"http://[fe80::1]/hook",
	} {
		label := bad[:min(len(bad), 40)]
		r := viaForm(bad)
		require.Equal(t, http.StatusUnprocessableEntity, r.status, label)
		require.NotEmpty(t, r.doc.Find(`[data-testid="error-url"]`).Text(), label)
		api := viaAPI(bad)
		require.Equal(t, http.StatusBadRequest, api.Status, label)
		require.Equal(t, "url", api.ErrorParam(t))
	}
	require.Equal(t, http.StatusSeeOther, viaForm("https://Lojá.example.com.br/hooks").status)
	require.Equal(t, http.StatusCreated, viaAPI("https://Lojá.example.com.br/api").Status)
	var stored []string
	require.NoError(t, s.DB.NewSelect().Model((*store.Webhook)(nil)).Column("url").Order("url").Scan(t.Context(), &stored))
	require.Equal(t, []string{"https://xn--loj-gla.example.com.br/api", "https://xn--loj-gla.example.com.br/hooks"}, stored)
}
