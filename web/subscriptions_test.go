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

// A subscription made and followed in the dashboard: the form, the page
// with the payer's QR and link, the payer's bank's answers simulated in
// test mode, the cycles with their attempts, and the cancellation,
// confirmed.
func TestDashboardSubscription(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonInBrasilia("2026-03-02")))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	form := url.Values{"_csrf": {b.csrf("/dashboard/subscriptions/new")}, "payer_name": {"Ana Lima"}, "payer_document": {"529.982.247-25"},
		"contract": {"ALUNO-0042"}, "description": {"Mensalidade"}, "interval": {"monthly"}, "start_date": {"2026-03-10"},
		"amount": {"490,00"}, "amount_kind": {"fixed"}, "journey": {"authorization_with_first_payment"}, "retries": {"1"}}
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("start_date", "2026-03-01")
	r := b.do("POST", "/dashboard/subscriptions", bad, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="error-start_date"]`).Text(), "a partir de hoje")

	r = b.do("POST", "/dashboard/subscriptions", form, nil)
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	path := r.header.Get("Location")
	page := b.do("GET", path, nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Equal(t, "awaiting_authorization", page.doc.Find(`[data-testid="status"]`).First().AttrOr("data-status", ""))
	require.Equal(t, 1, page.doc.Find(`[data-testid="subscription-code"] img`).Length(), "the payer's QR")
	require.Contains(t, page.doc.Find(`[data-testid="subscription-link"]`).Text(), "/pay/subscriptions/")
	require.Equal(t, "R$ 490,00", page.doc.Find(`[data-testid="subscription-amount"]`).Text())

	simulate := func(action string) {
		t.Helper()
		r := b.do("POST", path+"/simulate?action="+action, url.Values{"_csrf": {b.csrf(path)}}, nil)
		require.Equal(t, http.StatusSeeOther, r.status, "%s: %s", action, r.body)
	}
	simulate("authorize")
	simulate("fail")
	page = b.do("GET", path, nil, nil)
	rows := page.doc.Find(`[data-testid="cycle-row"]`)
	require.Equal(t, 2, rows.Length(), "the first cycle, paid with the authorization, and the second")
	require.Equal(t, "retrying", rows.First().AttrOr("data-status", ""))
	require.Contains(t, rows.First().Text(), "nova tentativa em 11/04/2026")
	simulate("pay")
	page = b.do("GET", path, nil, nil)
	require.Equal(t, "paid", page.doc.Find(`[data-testid="cycle-row"]`).First().AttrOr("data-status", ""))
	require.Equal(t, "10/05/2026", strings.TrimSpace(page.doc.Find(`[data-testid="subscription-next-cycle"]`).Text()))

	ask := b.do("POST", path+"/cancel", url.Values{"_csrf": {b.csrf(path)}}, nil)
	require.Equal(t, http.StatusOK, ask.status)
	require.Contains(t, ask.body, "Nenhuma cobrança nova será feita")
	done := b.do("POST", path+"/cancel", confirmForm(t, ask), nil)
	require.Equal(t, http.StatusSeeOther, done.status, "%s", done.body)
	page = b.do("GET", path, nil, nil)
	require.Equal(t, "canceled", page.doc.Find(`[data-testid="status"]`).First().AttrOr("data-status", ""))
	require.Equal(t, "Você", page.doc.Find(`[data-testid="subscription-canceled-by"]`).Text())
	list := b.do("GET", "/dashboard/subscriptions", nil, nil)
	require.Equal(t, 1, list.doc.Find(`[data-testid="subscription-row"]`).Length())
}

// Support finds a subscription by its payer's CPF (typed either way) and
// by its contract, in any account, the document masked.
func TestSupportFindsSubscriptions(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonInBrasilia("2026-03-02")))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: map[string]any{
		"payer": map[string]any{"name": "Ana Lima", "document": "529.982.247-25"}, "contract": "ALUNO-0042", "interval": "monthly",
		"start_date": "2026-03-10", "amount_cents": 49000, "journey": "payer_bank_request"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	_, err := s.Store.CreateUser(t.Context(), "ajuda@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	b := newBrowser(t, s)
	b.login("ajuda@example.com", "correct-horse-battery")
	for _, q := range []string{"52998224725", "529.982.247-25", "aluno-0042"} {
		page := b.do("GET", "/dashboard/support?q="+url.QueryEscape(q), nil, nil)
		rows := page.doc.Find(`[data-testid="support-subscription"]`)
		require.Equal(t, 1, rows.Length(), "%s", q)
		require.Equal(t, "***.982.247-**", rows.Find(`[data-testid="support-subscription-document"]`).Text())
	}
	require.Zero(t, b.do("GET", "/dashboard/support?q=ALUNO-0043", nil, nil).doc.Find(`[data-testid="support-subscription"]`).Length())
}
