package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// The payer's page of an authorization QR says what they authorize, in
// Portuguese first and in English, and shows the code only while the
// subscription awaits them.
func TestSubscriptionCheckoutExplainsTheAuthorization(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonInBrasilia("2026-03-02")))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: map[string]any{
		"payer": map[string]any{"name": "Ana Lima", "document": "529.982.247-25"}, "contract": "ALUNO-0042", "description": "Mensalidade",
		"interval": "monthly", "start_date": "2026-03-10", "end_date": "2026-12-10", "max_amount_cents": 60000,
		"retry_policy": "three_in_seven_days", "journey": "authorization_only"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	sub := r.JSON(t)
	b := newBrowser(t, s)
	path := strings.TrimPrefix(sub["checkout_url"].(string), s.URL)
	page := b.do("GET", path, nil, map[string]string{"Accept-Language": "pt-BR"})
	require.Equal(t, http.StatusOK, page.status, "%s", page.body)
	require.Equal(t, "pt-BR", page.doc.Find("html").AttrOr("lang", ""))
	terms := page.doc.Find(`[data-testid="subscription-terms"]`).Text()
	for _, want := range []string{"até R$ 600,00", "Mensal", "10/03/2026", "10/12/2026"} {
		require.Contains(t, terms, want)
	}
	require.Contains(t, page.body, "até três vezes nos sete dias seguintes")
	require.Contains(t, page.body, "cancelar esta autorização a qualquer momento no app do seu banco")
	require.Equal(t, sub["br_code"], page.doc.Find(`[data-testid="subscription-brcode"]`).AttrOr("value", ""))
	qr := b.do("GET", path+"/qr.png", nil, nil)
	require.Equal(t, http.StatusOK, qr.status)
	require.Equal(t, "image/png", qr.header.Get("Content-Type"))

	english := b.do("GET", path, nil, map[string]string{"Accept-Language": "en"})
	require.Contains(t, english.doc.Find(`[data-testid="subscription-terms"]`).Text(), "up to R$ 600,00")
	require.Contains(t, english.body, "Monthly")

	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + sub["id"].(string) + "/authorize", Key: s.TestKey}).Status)
	page = b.do("GET", path, nil, map[string]string{"Accept-Language": "pt-BR"})
	require.Zero(t, page.doc.Find(`[data-testid="subscription-qr"]`).Length(), "authorized: no code any more")
	require.Contains(t, page.doc.Find(`[data-testid="subscription-status"]`).Text(), "Autorizada")
	require.Equal(t, http.StatusNotFound, b.do("GET", path+"/qr.png", nil, nil).status)
	require.Equal(t, http.StatusNotFound, b.do("GET", "/pay/subscriptions/sub_nope", nil, nil).status)
}
