package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// GET /api/v1/refunds?payment= lists one payment's refunds (newest first),
// named by its id or its external_id, as Stripe lists a charge's; another
// payment's are left out; an unknown payment is 400 resource_missing.
func TestRefundsOfOnePayment(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 10_000, "external_id": "pedido-9"})
	id := p["id"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey}).Status)
	other := s.Fund(s.TestKey, 10_000)
	refund := func(payment string, cents int) string {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.TestKey, Body: map[string]any{"payment": payment, "amount_cents": cents}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		return r.JSON(t)["id"].(string)
	}
	first, second := refund(id, 1_000), refund(id, 2_000)
	refund(other, 500)
	for _, ref := range []string{id, "pedido-9"} {
		list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/refunds?payment=" + ref, Key: s.TestKey})
		require.Equal(t, http.StatusOK, list.Status, "%s", list.Body)
		var ids []string
		for _, r := range list.JSON(t)["data"].([]any) {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		require.Equal(t, []string{second, first}, ids, ref)
	}
	paged := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/refunds?payment=pedido-9&limit=1", Key: s.TestKey}).JSON(t)
	require.Equal(t, true, paged["has_more"])
	unknown := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/refunds?payment=nao-existe", Key: s.TestKey})
	require.Equal(t, http.StatusBadRequest, unknown.Status)
	require.Equal(t, "resource_missing", unknown.ErrorCode(t))
	require.Equal(t, "payment", unknown.ErrorParam(t))
}
