package api_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// payAtLink posts a payer's form to a payment link's page, as a browser
// would, without following the answer's redirect.
func payAtLink(t *testing.T, s *webtest.Server, id string, form url.Values) *webtest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", s.URL+"/pay/link/"+id, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept-Language", "pt-BR")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return &webtest.Response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// A payment link in test mode: each payer at its page makes a charge of
// their own, with the data it collects, opening the usual checkout; its
// uses are paid charges, and a charge still payable holds one, so
// max_uses holds; an open amount stays within its range; a deactivated or
// expired link takes no payer. Its input's rules are the API's 400s.
func TestPaymentLinksMakeAChargePerPayer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	s := webtest.New(t, webtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	post := func(path string, body any, want int) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "POST", Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, want, r.Status, "%s: %s", path, r.Body)
		return r.JSON(t)
	}
	get := func(path string) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "GET", Path: path, Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Body)
		return r.JSON(t)
	}
	fixed := post("/api/v1/payment_links", map[string]any{"description": " Ingresso — show de sábado ", "amount_cents": 2_500,
		"collect": []string{"name", "document", "email"}, "max_uses": 2}, http.StatusCreated)
	id := fixed["id"].(string)
	require.Regexp(t, `^plink_[0-9A-Za-z]{22}$`, id)
	require.Equal(t, []any{"payment_link", "active", true, "Ingresso — show de sábado", 2_500.0, "R$ 25,00", nil, nil, 2.0, 0.0, 0.0},
		[]any{fixed["object"], fixed["status"], fixed["available"], fixed["description"], fixed["amount_cents"], fixed["amount_label"],
			fixed["min_amount_cents"], fixed["max_amount_cents"], fixed["max_uses"], fixed["uses"], fixed["open_charges"]})
	require.True(t, strings.HasSuffix(fixed["url"].(string), "/pay/link/"+id), fixed["url"])
	require.Equal(t, fixed["url"].(string)+"/qr.png", fixed["qr_code_url"])

	// Its page: whom, what for, how much, and the fields it asks.
	page := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/link/" + id, Headers: map[string]string{"Accept-Language": "pt-BR"}})
	require.Equal(t, http.StatusOK, page.Status)
	for _, want := range []string{s.Account.Name, "Ingresso — show de sábado", "R$ 25,00", `name="name"`, `name="document"`, `name="email"`, "Continuar para o Pix"} {
		require.Contains(t, string(page.Body), want)
	}
	require.NotContains(t, string(page.Body), `name="amount"`, "a fixed link asks no amount")
	img := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/link/" + id + "/qr.png"})
	require.Equal(t, []any{http.StatusOK, "image/png"}, []any{img.Status, img.Header.Get("Content-Type")})

	// A wrong CPF is shown beside its field; nothing is made.
	r := payAtLink(t, s, id, url.Values{"name": {"Ana Lima"}, "document": {"529.982.247-26"}, "email": {"ana@example.com"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	require.Contains(t, string(r.Body), `data-testid="error-document"`)
	require.Contains(t, string(r.Body), `value="Ana Lima"`, "what was typed stays")

	r = payAtLink(t, s, id, url.Values{"name": {"Ana Lima"}, "document": {"529.982.247-25"}, "email": {"ana@example.com"}})
	require.Equal(t, http.StatusSeeOther, r.Status, string(r.Body))
	first := strings.TrimPrefix(r.Header.Get("Location"), "/pay/")
	p := get("/api/v1/payments/" + first)
	require.Equal(t, []any{"pending", 2_500.0, id, "Ingresso — show de sábado", nil},
		[]any{p["status"], p["amount_cents"], p["payment_link"], p["description"], p["pix_qr_code"]})
	require.Equal(t, map[string]any{"name": "Ana Lima", "document": "52998224725", "email": "ana@example.com", "phone": nil}, p["customer"])
	created, _ := time.Parse(time.RFC3339, p["created_at"].(string))
	expires, _ := time.Parse(time.RFC3339, p["expires_at"].(string))
	require.Equal(t, store.LinkChargeExpiresIn, expires.Sub(created).Round(time.Second))
	require.Equal(t, http.StatusOK, s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + first}).Status, "the usual checkout")

	// Two uses: the second payer takes the last; a third finds both held.
	r = payAtLink(t, s, id, url.Values{"name": {"Bruno Dias"}, "document": {"12.ABC.345/01DE-35"}, "email": {"bruno@example.com"}})
	require.Equal(t, http.StatusSeeOther, r.Status, string(r.Body))
	second := strings.TrimPrefix(r.Header.Get("Location"), "/pay/")
	r = payAtLink(t, s, id, url.Values{"name": {"Carla Reis"}, "document": {"529.982.247-25"}, "email": {"carla@example.com"}})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Contains(t, string(r.Body), "reservados por cobranças aguardando pagamento")
	require.Equal(t, []any{false, 0.0, 2.0}, []any{get("/api/v1/payment_links/" + id)["available"], get("/api/v1/payment_links/" + id)["uses"],
		get("/api/v1/payment_links/" + id)["open_charges"]})

	// The first paid, the second expires: its use is free again.
	post("/api/v1/test_helpers/payments/"+first+"/pay", nil, http.StatusOK)
	post("/api/v1/test_helpers/payments/"+second+"/expire", nil, http.StatusOK)
	l := get("/api/v1/payment_links/" + id)
	require.Equal(t, []any{true, 1.0, 0.0, 2_500.0}, []any{l["available"], l["uses"], l["open_charges"], l["amount_received_cents"]})
	r = payAtLink(t, s, id, url.Values{"name": {"Carla Reis"}, "document": {"529.982.247-25"}, "email": {"carla@example.com"}})
	require.Equal(t, http.StatusSeeOther, r.Status, string(r.Body))
	third := strings.TrimPrefix(r.Header.Get("Location"), "/pay/")
	post("/api/v1/test_helpers/payments/"+third+"/pay", nil, http.StatusOK)
	page = s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/link/" + id, Headers: map[string]string{"Accept-Language": "pt-BR"}})
	require.Equal(t, http.StatusGone, page.Status)
	require.Contains(t, string(page.Body), "já recebeu todos os pagamentos")
	require.NotContains(t, string(page.Body), "<form")
	list := get("/api/v1/payments?payment_link=" + id)["data"].([]any)
	var listed []any
	for _, p := range list {
		listed = append(listed, p.(map[string]any)["id"])
	}
	require.ElementsMatch(t, []any{first, second, third}, listed)

	// An amount the payer chooses, within its range; nothing collected.
	open := post("/api/v1/payment_links", map[string]any{"description": "Doação", "min_amount_cents": 500, "max_amount_cents": 500_000},
		http.StatusCreated)
	require.Equal(t, []any{nil, 500.0, 500_000.0, []any{}, nil}, []any{open["amount_cents"], open["min_amount_cents"], open["max_amount_cents"], open["collect"], open["max_uses"]})
	for _, typed := range []string{"4,99", "5.000,01", "dez"} {
		r = payAtLink(t, s, open["id"].(string), url.Values{"amount": {typed}})
		require.Equal(t, http.StatusUnprocessableEntity, r.Status, typed)
		require.Contains(t, string(r.Body), "Digite um valor de R$ 5,00 a R$ 5.000,00.")
	}
	r = payAtLink(t, s, open["id"].(string), url.Values{"amount": {"R$ 1.234,56"}})
	require.Equal(t, http.StatusSeeOther, r.Status, string(r.Body))
	p = get("/api/v1/payments/" + strings.TrimPrefix(r.Header.Get("Location"), "/pay/"))
	require.Equal(t, []any{123_456.0, nil}, []any{p["amount_cents"], p["customer"]})
	defaults := post("/api/v1/payment_links", map[string]any{"description": "Qualquer valor"}, http.StatusCreated)
	require.Equal(t, []any{1.0, 100_000_000.0}, []any{defaults["min_amount_cents"], defaults["max_amount_cents"]})

	// Deactivated, its page takes no one; again, it answers as it is.
	off := post("/api/v1/payment_links/"+open["id"].(string)+"/deactivate", nil, http.StatusOK)
	require.Equal(t, []any{"disabled", false}, []any{off["status"], off["available"]})
	require.Equal(t, "disabled", post("/api/v1/payment_links/"+open["id"].(string)+"/deactivate", nil, http.StatusOK)["status"])
	r = payAtLink(t, s, open["id"].(string), url.Values{"amount": {"10,00"}})
	require.Equal(t, http.StatusGone, r.Status)
	require.Contains(t, string(r.Body), "não recebe mais pagamentos")
	require.Len(t, get("/api/v1/payment_links?status=disabled")["data"], 1)
	require.Len(t, get("/api/v1/payment_links")["data"], 3)

	// Past its expiry, the same.
	expiring := post("/api/v1/payment_links", map[string]any{"description": "Promoção", "amount_cents": 990, "expires_at": "2026-03-02T18:00:00Z"},
		http.StatusCreated)
	mu.Lock()
	now = now.Add(4 * time.Hour)
	mu.Unlock()
	require.Equal(t, http.StatusGone, payAtLink(t, s, expiring["id"].(string), url.Values{}).Status)
	require.Equal(t, false, get("/api/v1/payment_links/" + expiring["id"].(string))["available"])

	// Who made each charge: the payer, at the payer's page.
	var doors []string
	require.NoError(t, s.DB.NewRaw(`SELECT DISTINCT actor || '@' || door FROM audit_log WHERE object_id = ? OR object_id = ?`, id, first).
		Scan(context.Background(), &doors))
	require.Contains(t, doors, "payer@checkout")

	for _, bad := range []struct {
		body        map[string]any
		param, code string
	}{
		{map[string]any{"amount_cents": 100}, "description", "parameter_missing"},
		{map[string]any{"description": "   "}, "description", "parameter_missing"},
		{map[string]any{"description": strings.Repeat("x", 141)}, "description", "parameter_too_long"},
		{map[string]any{"description": "x", "amount_cents": 100, "min_amount_cents": 50}, "min_amount_cents", "parameter_invalid"},
		{map[string]any{"description": "x", "min_amount_cents": 500, "max_amount_cents": 100}, "max_amount_cents", "parameter_invalid"},
		{map[string]any{"description": "x", "collect": []string{"document"}}, "collect", "parameter_invalid"},
		{map[string]any{"description": "x", "collect": []string{"email"}}, "collect", "parameter_invalid"},
		{map[string]any{"description": "x", "collect": []string{"name", "document", "phone"}}, "collect", "parameter_invalid"},
		{map[string]any{"description": "x", "collect": []string{"name", "name", "document"}}, "collect", "parameter_invalid"},
		{map[string]any{"description": "x", "collect": "name"}, "collect", "parameter_invalid_type"},
		{map[string]any{"description": "x", "max_uses": 0}, "max_uses", "parameter_invalid"},
		{map[string]any{"description": "x", "max_uses": 1_000_001}, "max_uses", "parameter_invalid"},
		{map[string]any{"description": "x", "expires_at": "2026-03-01T00:00:00Z"}, "expires_at", "parameter_invalid"},
		{map[string]any{"description": "x", "color": "red"}, "color", "parameter_unknown"},
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links", Key: s.TestKey, Body: bad.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", bad.body, r.Body)
		require.Equal(t, []string{bad.code, bad.param}, []string{r.ErrorCode(t), r.ErrorParam(t)}, "%v", bad.body)
	}
	require.Equal(t, http.StatusNotFound, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payment_links/plink_nope", Key: s.TestKey}).Status)
	require.Equal(t, http.StatusNotFound, s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/link/plink_nope"}).Status)
	s.LedgerMatchesBalance(store.Scope{AccountID: s.Account.ID})
}

// One address makes at most LinkChargesPerMinute charges through links a
// minute: the next is 429 with Retry-After, and makes nothing.
func TestPaymentLinkChargesAreRateLimited(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links", Key: s.TestKey, Body: map[string]any{"description": "Rifa", "amount_cents": 100}})
	require.Equal(t, http.StatusCreated, r.Status)
	id := r.JSON(t)["id"].(string)
	made := 0
	var last *webtest.Response
	for range 70 {
		last = payAtLink(t, s, id, url.Values{})
		if last.Status != http.StatusSeeOther {
			break
		}
		made++
	}
	require.Equal(t, http.StatusTooManyRequests, last.Status)
	require.Equal(t, "60", last.Header.Get("Retry-After"))
	require.GreaterOrEqual(t, made, 30, "a minute's boundary may split them")
	require.LessOrEqual(t, made, 60)
	var n int
	require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM payments WHERE payment_link = ?`, id).Scan(context.Background(), &n))
	require.Equal(t, made, n)
}
