package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// MED 2.0 for money sent, in test mode: a completed withdrawal is
// contested once, within 80 days, for MED's grounds with an account of
// what happened; its end credits what came back (in whole or in part) or
// refuses; the dashboard contests after a confirmation, audited.
func TestWithdrawalsAreContestedAndWhatComesBackIsCredited(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	s := webtest.New(t, webtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	api := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: method, Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	available := func() float64 {
		return api("GET", "/api/v1/balance", nil, http.StatusOK)["available_cents"].(float64)
	}
	s.Fund(s.TestKey, 100_000)
	withdraw := func(cents int) string {
		id := api("POST", "/api/v1/withdrawals", map[string]any{"amount_cents": cents, "pix_key": "golpista@example.com"}, http.StatusCreated)["id"].(string)
		api("POST", "/api/v1/test_helpers/withdrawals/"+id+"/complete", nil, http.StatusOK)
		return id
	}
	first := withdraw(8_000)
	pending := api("POST", "/api/v1/withdrawals", map[string]any{"amount_cents": 100, "pix_key": "ana@example.com"}, http.StatusCreated)["id"].(string)

	for _, bad := range []struct {
		body        map[string]any
		code, param string
	}{
		{map[string]any{"reason": "commercial_disagreement", "description": "Não entregou."}, "parameter_invalid", "reason"},
		{map[string]any{"reason": "fraud", "description": "   "}, "parameter_missing", "description"},
		{map[string]any{"reason": "fraud", "description": strings.Repeat("x", 2001)}, "parameter_too_long", "description"},
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals/" + first + "/contest", Key: s.TestKey, Body: bad.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		require.Equal(t, []string{bad.code, bad.param}, []string{r.ErrorCode(t), r.ErrorParam(t)})
	}
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals/" + pending + "/contest", Key: s.TestKey,
		Body: map[string]any{"reason": "fraud", "description": "Golpe."}})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "withdrawal_invalid_state", r.ErrorCode(t), "only money that left can be asked back")

	before := available()
	w := api("POST", "/api/v1/withdrawals/"+first+"/contest", map[string]any{"reason": "coercion",
		"description": "  Fui coagido por telefone a transferir.  "}, http.StatusOK)
	require.Equal(t, map[string]any{"status": "pending", "reason": "coercion", "description": "Fui coagido por telefone a transferir.",
		"amount_returned_cents": nil, "reference": nil, "created_at": "2026-03-02T15:00:00.000Z", "resolved_at": nil}, w["contest"])
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals/" + first + "/contest", Key: s.TestKey,
		Body: map[string]any{"reason": "fraud", "description": "De novo."}})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "withdrawal_contested", r.ErrorCode(t))

	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + first + "/contest_result", Key: s.TestKey,
		Body: map[string]any{"amount_returned_cents": 8_001}})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	w = api("POST", "/api/v1/test_helpers/withdrawals/"+first+"/contest_result", map[string]any{"amount_returned_cents": 5_000}, http.StatusOK)
	contest := w["contest"].(map[string]any)
	require.Equal(t, []any{"partially_returned", 5_000.0}, []any{contest["status"], contest["amount_returned_cents"]})
	require.Equal(t, before+5_000, available(), "what came back is available again")
	require.Equal(t, []string{"withdrawal.completed", "withdrawal.contested", "withdrawal.contest_returned"}, s.EventTypes(first))

	// Past MED's 80 days, a withdrawal takes no contest.
	old := withdraw(1_000)
	mu.Lock()
	now = now.Add(81 * 24 * time.Hour)
	mu.Unlock()
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals/" + old + "/contest", Key: s.TestKey,
		Body: map[string]any{"reason": "fraud", "description": "Golpe."}})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "contest_window_passed", r.ErrorCode(t))

	// The dashboard: the contest form on the balance page, a confirmation,
	// then the same operation; refused in test mode, nothing comes back.
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	third := withdraw(2_500)
	page := b.do("GET", "/dashboard/balance", nil, nil)
	row := page.doc.Find(`[data-withdrawal-id="` + third + `"]`)
	require.Equal(t, 1, row.Find(`[data-testid="contest-form"]`).Length(), "a completed withdrawal offers its contest")
	require.Zero(t, page.doc.Find(`[data-withdrawal-id="`+first+`"] [data-testid="contest-form"]`).Length(), "contested once")
	require.Equal(t, "partially_returned", page.doc.Find(`[data-withdrawal-id="`+first+`"] [data-testid="withdrawal-contest"]`).AttrOr("data-status", ""))
	token := page.doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")
	form := url.Values{"_csrf": {token}, "reason": {"fraud"}, "description": {"Falso boleto de fornecedor."}}
	ask := b.do("POST", "/dashboard/balance/withdrawals/"+third+"/contest", form, nil)
	require.Equal(t, http.StatusOK, ask.status)
	require.Contains(t, ask.doc.Find(`[data-testid="confirmation"]`).Text(), "R$ 25,00")
	require.Contains(t, ask.doc.Find(`[data-testid="confirmation"]`).Text(), "Fraude")
	done := b.do("POST", "/dashboard/balance/withdrawals/"+third+"/contest", confirmForm(t, ask), nil)
	require.Equal(t, http.StatusSeeOther, done.status, "%s", done.body)
	after := b.do("GET", "/dashboard/balance", nil, nil)
	require.Contains(t, after.doc.Find(`[data-testid="notice"]`).Text(), "contestado")
	require.Equal(t, "pending", after.doc.Find(`[data-withdrawal-id="`+third+`"] [data-testid="withdrawal-contest"]`).AttrOr("data-status", ""))
	refused := b.do("POST", "/dashboard/balance/withdrawals/"+third+"/contest_result/refused", url.Values{"_csrf": {token}}, nil)
	require.Equal(t, http.StatusSeeOther, refused.status)
	got := api("GET", "/api/v1/withdrawals/"+third, nil, http.StatusOK)["contest"].(map[string]any)
	require.Equal(t, []any{"refused", 0.0, "fraud"}, []any{got["status"], got["amount_returned_cents"], got["reason"]})
	audit := b.do("GET", "/dashboard/audit", nil, nil)
	require.Contains(t, audit.body, "Saque contestado (MED)")
}
