package api_test

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/web/webtest"
)

// Static QR codes in test mode: a fixed code and an open one, each a
// static BR Code (the receiver's key, its txid, its amount when fixed),
// paid any number of times, each payment one of its own that names the
// code; the code counts them; a wrong amount, an open code without one and
// an expired code are refused.
func TestStaticQRCodesArePaidManyTimes(t *testing.T) {
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
	fixed := post("/api/v1/pix_qr_codes", map[string]any{"amount_cents": 1_250, "description": "  Café expresso  "}, http.StatusCreated)
	open := post("/api/v1/pix_qr_codes", nil, http.StatusCreated)
	require.Equal(t, []any{"pix_qr_code", "active", 1_250.0, "R$ 12,50", "Café expresso", 0.0, 0.0},
		[]any{fixed["object"], fixed["status"], fixed["amount_cents"], fixed["amount_label"], fixed["description"], fixed["payments"], fixed["amount_received_cents"]})
	require.Nil(t, open["amount_cents"])
	for _, c := range []map[string]any{fixed, open} {
		d, err := pix.Decode(c["br_code"].(string))
		require.NoError(t, err)
		require.NotEmpty(t, d.MerchantAccount["01"], "a static code carries the receiver's key")
		require.Empty(t, d.MerchantAccount["25"], "and no location: it is no charge")
		require.NotEqual(t, "12", d.Fields["01"], "not single-use")
		require.Equal(t, c["txid"], d.AdditionalData["05"], "its txid in field 62-05")
	}
	d, _ := pix.Decode(fixed["br_code"].(string))
	require.Equal(t, "12.50", d.Fields["54"])
	d, _ = pix.Decode(open["br_code"].(string))
	require.Empty(t, d.Fields["54"], "an open code leaves the amount to the payer")

	id := fixed["id"].(string)
	first := post("/api/v1/test_helpers/pix_qr_codes/"+id+"/pay", nil, http.StatusCreated)
	second := post("/api/v1/test_helpers/pix_qr_codes/"+id+"/pay", map[string]any{"amount_cents": 1_250}, http.StatusCreated)
	openPaid := post("/api/v1/test_helpers/pix_qr_codes/"+open["id"].(string)+"/pay", map[string]any{"amount_cents": 777}, http.StatusCreated)
	for _, p := range []map[string]any{first, second} {
		require.Equal(t, []any{"paid", 1_250.0, id, "Café expresso"}, []any{p["status"], p["amount_paid_cents"], p["pix_qr_code"], p["description"]})
	}
	require.NotEqual(t, first["id"], second["id"], "each payment is one of its own")
	require.NotEqual(t, first["correlation_id"], second["correlation_id"])
	require.Equal(t, 777.0, openPaid["amount_cents"])
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(first["id"].(string)))

	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?pix_qr_code=" + id, Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 2)
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/pix_qr_codes/" + id, Key: s.TestKey}).JSON(t)
	require.Equal(t, []any{2.0, 2_500.0}, []any{got["payments"], got["amount_received_cents"]})
	require.Len(t, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/pix_qr_codes", Key: s.TestKey}).JSON(t)["data"], 2)
	s.LedgerMatchesBalance(store.Scope{AccountID: s.Account.ID})
	bal := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).JSON(t)
	require.EqualValues(t, 2*(1_250-first["fee_cents"].(float64))+777-openPaid["fee_cents"].(float64), bal["available_cents"])

	for _, bad := range []struct {
		path string
		body map[string]any
		code string
	}{
		{"/api/v1/test_helpers/pix_qr_codes/" + id + "/pay", map[string]any{"amount_cents": 1_000}, "amount_invalid"},
		{"/api/v1/test_helpers/pix_qr_codes/" + open["id"].(string) + "/pay", nil, "parameter_missing"},
		{"/api/v1/pix_qr_codes", map[string]any{"description": string(bytes.Repeat([]byte("x"), 141))}, "parameter_too_long"},
		{"/api/v1/pix_qr_codes", map[string]any{"expires_at": "2026-03-01T00:00:00Z"}, "parameter_invalid"},
	} {
		req := webtest.Request{Method: "POST", Path: bad.path, Key: s.TestKey}
		if bad.body != nil {
			req.Body = bad.body
		}
		r := s.Do(req)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", bad.path, r.Body)
		require.Equal(t, bad.code, r.ErrorCode(t))
	}

	// Its image is public while it takes payments; not once it expired.
	expiring := post("/api/v1/pix_qr_codes", map[string]any{"amount_cents": 500, "expires_at": "2026-03-02T18:00:00Z"}, http.StatusCreated)
	img := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/qr/" + expiring["id"].(string) + "/qr.png"})
	require.Equal(t, http.StatusOK, img.Status)
	require.Equal(t, "image/png", img.Header.Get("Content-Type"))
	mu.Lock()
	now = now.Add(4 * time.Hour)
	mu.Unlock()
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/pix_qr_codes/" + expiring["id"].(string) + "/pay", Key: s.TestKey})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "pix_qr_code_inactive", r.ErrorCode(t))
	require.Equal(t, http.StatusNotFound, s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/qr/" + expiring["id"].(string) + "/qr.png"}).Status)
}

// A static code deactivated takes no more payments: its status is
// disabled (listed as such), a payment into it is 409
// pix_qr_code_inactive, its page and image are gone, and deactivating it
// again answers it as it is with one audit row in all. Another account's
// code is no code; a platform deactivates its subaccount's.
func TestADeactivatedStaticQRCodeTakesNoPayment(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	call := func(method, path string, headers map[string]string, want int) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: method, Path: path, Key: s.TestKey, Headers: headers})
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	code := call("POST", "/api/v1/pix_qr_codes", nil, http.StatusCreated)
	id := code["id"].(string)
	require.Equal(t, http.StatusOK, s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/qr/" + id}).Status)

	off := call("POST", "/api/v1/pix_qr_codes/"+id+"/deactivate", nil, http.StatusOK)
	require.Equal(t, []any{id, "disabled", code["br_code"]}, []any{off["id"], off["status"], off["br_code"]})
	require.Equal(t, off, call("POST", "/api/v1/pix_qr_codes/"+id+"/deactivate", nil, http.StatusOK), "a second time answers it as it is")
	var audits int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM audit_log WHERE action = 'pix_qr_code.deactivated' AND object_id = ?", id).
		Scan(t.Context(), &audits))
	require.Equal(t, 1, audits)

	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/pix_qr_codes/" + id + "/pay", Key: s.TestKey, Body: map[string]any{"amount_cents": 100}})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Equal(t, "pix_qr_code_inactive", r.ErrorCode(t))
	for _, path := range []string{"/pay/qr/" + id, "/pay/qr/" + id + "/qr.png"} {
		require.Equal(t, http.StatusNotFound, s.DoRaw(webtest.Request{Method: "GET", Path: path}).Status, path)
	}
	listed := call("GET", "/api/v1/pix_qr_codes?status=disabled", nil, http.StatusOK)["data"].([]any)
	require.Len(t, listed, 1)
	require.Equal(t, id, listed[0].(map[string]any)["id"])
	require.Empty(t, call("GET", "/api/v1/pix_qr_codes?status=active", nil, http.StatusOK)["data"])

	_, otherKey, _ := s.NewAccount("Outra Loja", "outra@example.com")
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes/" + id + "/deactivate", Key: otherKey})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	require.Equal(t, "resource_missing", r.ErrorCode(t))

	p := newSplitPlatform(t, s)
	sellers := map[string]string{"Payments-Account": p.sellerA}
	theirs := call("POST", "/api/v1/pix_qr_codes", sellers, http.StatusCreated)["id"].(string)
	call("POST", "/api/v1/pix_qr_codes/"+theirs+"/deactivate", nil, http.StatusNotFound)
	require.Equal(t, "disabled", call("POST", "/api/v1/pix_qr_codes/"+theirs+"/deactivate", sellers, http.StatusOK)["status"])
}
