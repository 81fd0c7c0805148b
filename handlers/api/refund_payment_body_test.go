package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// POST /api/v1/payments/{id}/refund refunds what it is asked to, not the
// whole payment: R$ 23,45 of R$ 100,00 leaves it paid with one refund of
// 2,345 carrying its description; an empty body refunds what is left; an
// unknown parameter or too much is refused and changes nothing.
func TestRefundPaymentTakesAnAmount(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	id := s.Fund(s.TestKey, 10_000)
	refund := func(body any) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + id + "/refund", Key: s.TestKey, Body: body})
	}
	refunds := func() []any {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/refunds", Key: s.TestKey}).JSON(t)["data"].([]any)
	}

	r := refund(map[string]any{"amount_cents": 2_345, "description": "Troca do tamanho"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	paid := r.JSON(t)
	require.Equal(t, "paid", paid["status"], "partly refunded is still paid")
	// The payment says what went back and what it still leaves: the fee
	// comes back pro rata (rounded down) with the amount.
	fee := int64(paid["fee_cents"].(float64))
	require.Positive(t, fee)
	require.Equal(t, float64(2_345), paid["amount_refunded_cents"])
	require.Equal(t, float64(10_000-fee-2_345+fee*2_345/10_000), paid["net_cents"])
	got := refunds()
	require.Len(t, got, 1)
	require.Equal(t, float64(2_345), got[0].(map[string]any)["amount_cents"])
	require.Equal(t, "Troca do tamanho", got[0].(map[string]any)["description"])
	require.Equal(t, "succeeded", got[0].(map[string]any)["status"], "test mode settles at once")

	for _, c := range []struct {
		body        any
		status      int
		code, param string
	}{
		{map[string]any{"amount": 100}, http.StatusBadRequest, "parameter_unknown", "amount"},
		{map[string]any{"amount_cents": 7_656}, http.StatusBadRequest, "amount_too_large", "amount_cents"},
		{map[string]any{"amount_cents": 0}, http.StatusBadRequest, "amount_too_small", "amount_cents"},
		{"[1]", http.StatusBadRequest, "invalid_json", ""},
	} {
		r := refund(c.body)
		require.Equal(t, c.status, r.Status, "%v: %s", c.body, r.Body)
		require.Equal(t, c.code, r.ErrorCode(t))
		require.Equal(t, c.param, r.ErrorParam(t))
	}
	require.Len(t, refunds(), 1, "a refused refund changes nothing")

	r = refund(nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	refunded := r.JSON(t)
	require.Equal(t, "refunded", refunded["status"], "no body: all that is left")
	require.Equal(t, float64(10_000), refunded["amount_refunded_cents"])
	require.Equal(t, float64(0), refunded["net_cents"], "all returned, the fee with it: nothing left")
	require.Equal(t, float64(7_655), refunds()[0].(map[string]any)["amount_cents"])
}

// A POST that takes no parameters refuses a body that sends some, rather
// than doing its work and ignoring them.
func TestPostsWithoutParametersRefuseThem(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 500})
	id := p["id"].(string)
	for _, path := range []string{
		"/api/v1/test_helpers/payments/" + id + "/pay",
		"/api/v1/test_helpers/payments/" + id + "/expire",
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: path, Key: s.TestKey, Body: map[string]any{"amount_cents": 1}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", path, r.Body)
		require.Equal(t, "parameter_unknown", r.ErrorCode(t))
		require.Equal(t, "amount_cents", r.ErrorParam(t))
	}
	require.Equal(t, "pending", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey}).JSON(t)["status"])
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey, Body: map[string]any{}})
	require.Equal(t, http.StatusOK, r.Status, "an empty object is no parameter")
}
