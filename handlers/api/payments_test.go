package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

func validCreateBody() map[string]any {
	return map[string]any{
		"amount_cents": 123456,
		"description":  "Pedido 42",
		"external_id":  "order-42",
		"customer": map[string]any{
			"name": "Maria Silva", "email": "maria@example.com", "document": "529.982.247-25", "phone": "+55 (11) 99999-0000",
		},
		"metadata":   map[string]any{"order": "42"},
		"expires_in": 3600,
	}
}

func TestCreatePaymentReturnsFullObject(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: validCreateBody()})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	p := r.JSON(t)
	require.Equal(t, "pending", p["status"])
	require.Equal(t, "R$ 1.234,56", p["amount_label"])
	require.Equal(t, float64(1222), p["fee_cents"]) // 0.99% of 1234.56, rounded half up
	require.Equal(t, "BRL", p["currency"])
	require.Equal(t, "pix", p["payment_method"])
	require.Equal(t, false, p["livemode"])
	require.Equal(t, "order-42", p["external_id"])
	require.Equal(t, map[string]any{"name": "Maria Silva", "email": "maria@example.com", "document": "52998224725", "phone": "+5511999990000"}, p["customer"])
	require.Equal(t, map[string]any{"order": "42"}, p["metadata"])
	require.Equal(t, "/api/v1/payments/"+p["id"].(string), r.Header.Get("Location"))
	require.Regexp(t, `^[A-Za-z0-9]{26,35}$`, p["correlation_id"], "a txid: 26 to 35 letters and digits")
	pixObj := p["pix"].(map[string]any)
	d, err := pix.Decode(pixObj["br_code"].(string))
	require.NoError(t, err, "the BR Code's CRC verifies")
	require.Equal(t, "1234.56", d.Fields["54"])
	require.Equal(t, p["correlation_id"], d.AdditionalData["05"])
	require.Equal(t, s.URL+"/pay/"+p["id"].(string)+"/qr.png", pixObj["qr_code_url"])
	require.Equal(t, s.URL+"/pay/"+p["id"].(string), p["checkout_url"])
}
