package psp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/web/webtest"
)

func pspNotify(s *webtest.Server, token string, transfers ...map[string]any) *webtest.Response {
	headers := map[string]string{}
	if token != "" {
		headers["Authorization"] = "Bearer " + token
	}
	return s.Do(webtest.Request{Method: "POST", Path: "/psp/pix", Body: map[string]any{"pix": transfers}, Headers: headers})
}

func transfer(e2e, txid, valor string) map[string]any {
	return map[string]any{"endToEndId": e2e, "txid": txid, "valor": valor, "horario": "2026-11-22T12:00:00.000-03:00", "infoPagador": "pedido"}
}

func e2eID() string { return "E" + pix.RandomBase62(31) }

func outcome(t *testing.T, r *webtest.Response, i int) (string, bool) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	res := r.JSON(t)["results"].([]any)[i].(map[string]any)
	return res["outcome"].(string), res["duplicate"].(bool)
}

func TestPSPExactAmountPaysOnceByEndToEndID(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 12990})
	txid := p["correlation_id"].(string)
	e2e := e2eID()

	got, dup := outcome(t, pspNotify(s, webtest.PSPToken, transfer(e2e, txid, "129.90")), 0)
	require.Equal(t, "paid", got)
	require.False(t, dup)
	got, dup = outcome(t, pspNotify(s, webtest.PSPToken, transfer(e2e, txid, "129.90")), 0)
	require.Equal(t, "paid", got)
	require.True(t, dup, "the same endToEndId again changes nothing")

	status := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.TestKey}).JSON(t)["status"]
	require.Equal(t, "paid", status)
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(p["id"].(string)), "exactly one payment.paid")

	// A second, different transfer for the paid charge is real money: recorded for support.
	got, _ = outcome(t, pspNotify(s, webtest.PSPToken, transfer(e2eID(), txid, "129.90")), 0)
	require.Equal(t, "already_paid", got)
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(p["id"].(string)))
}

func TestPSPConcurrentRedeliveriesPayOnce(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 500})
	e2e := e2eID()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			r := pspNotify(s, webtest.PSPToken, transfer(e2e, p["correlation_id"].(string), "5.00"))
			require.Equal(t, http.StatusOK, r.Status)
		})
	}
	wg.Wait()
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(p["id"].(string)))
}

func TestPSPMismatchAndUnknownAreRecordedNotPaid(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 1000})
	expired := s.CreatePayment(map[string]any{"amount_cents": 700})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + expired["id"].(string) + "/expire", Key: s.TestKey})

	r := pspNotify(s, webtest.PSPToken,
		transfer(e2eID(), p["correlation_id"].(string), "9.99"),
		transfer(e2eID(), "UNKNOWNTXID0000000000000000", "10.00"),
		transfer(e2eID(), expired["correlation_id"].(string), "7.00"),
	)
	first, _ := outcome(t, r, 0)
	second, _ := outcome(t, r, 1)
	third, _ := outcome(t, r, 2)
	require.Equal(t, []string{"amount_mismatch", "unknown_txid", "paid"}, []string{first, second, third})
	status := func(m map[string]any) string {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + m["id"].(string), Key: s.TestKey}).JSON(t)["status"].(string)
	}
	require.Equal(t, "pending", status(p), "a wrong amount never pays silently")
	require.Equal(t, "paid", status(expired), "an expired charge still becomes paid: the money is real")

	problems, err := s.Store.PixNotifications(context.Background(), true, 10)
	require.NoError(t, err)
	require.Len(t, problems, 2)
	outcomes := map[string]bool{}
	for _, n := range problems {
		outcomes[n.Outcome] = true
		require.Contains(t, string(n.Raw), `"infoPagador"`, "the transfer is kept as the PSP sent it")
	}
	require.True(t, outcomes[store.PixAmountMismatch] && outcomes[store.PixUnknownTxID])
}

func TestPSPAuthAndValidation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	good := transfer(e2eID(), "TXID0000000000000000000000", "1.00")
	require.Equal(t, http.StatusUnauthorized, pspNotify(s, "", good).Status)
	bare := s.Do(webtest.Request{Method: "POST", Path: "/psp/pix", Body: map[string]any{"pix": []any{good}},
		Headers: map[string]string{"Authorization": webtest.PSPToken}})
	require.Equal(t, http.StatusUnauthorized, bare.Status, "the token must come as a Bearer token")
	r := pspNotify(s, "wrong-token", good)
	require.Equal(t, http.StatusUnauthorized, r.Status)
	require.Equal(t, "psp_token_invalid", r.ErrorCode(t))

	cases := []struct {
		item  map[string]any
		param string
	}{
		{transfer("short", "TXID", "1.00"), "pix[0].endToEndId"},
		{transfer(e2eID(), "bad-txid!", "1.00"), "pix[0].txid"},
		{transfer(e2eID(), "TXID", "1.0"), "pix[0].valor"},
		{transfer(e2eID(), "TXID", "-1.00"), "pix[0].valor"},
		{map[string]any{"endToEndId": e2eID(), "txid": "TXID", "valor": "1.00", "horario": "yesterday"}, "pix[0].horario"},
	}
	for _, c := range cases {
		r := pspNotify(s, webtest.PSPToken, c.item)
		require.Equal(t, http.StatusBadRequest, r.Status, c.param)
		require.Equal(t, c.param, r.ErrorParam(t))
	}
	empty := s.Do(webtest.Request{Method: "POST", Path: "/psp/pix", Body: map[string]any{"pix": []any{}},
		Headers: map[string]string{"Authorization": "Bearer " + webtest.PSPToken}})
	require.Equal(t, http.StatusBadRequest, empty.Status)
	require.NotContains(t, s.Logs.String(), webtest.PSPToken)
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM psp_notifications").Scan(context.Background(), &n))
	require.Zero(t, n, "refused notifications store nothing")
}

func TestPSPWithdrawalAndDisputeNotifications(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	receiver := webtest.NewReceiver(t, nil)
	s.CreateWebhook(receiver.URL, map[string]any{"events": []string{"withdrawal.completed", "withdrawal.failed"}})
	s.Fund(s.TestKey, 10_000)
	w := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{"amount_cents": 5_000, "pix_key": "52998224725"}}).JSON(t)
	id := w["id"].(string)
	psp := func(path string, token string, body map[string]any) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: path, Headers: map[string]string{"Authorization": "Bearer " + token}, Body: body})
	}
	e2e := e2eID()
	require.Equal(t, http.StatusUnauthorized, psp("/psp/withdrawals", "wrong", map[string]any{"id": id, "status": "completed"}).Status)
	bad := psp("/psp/withdrawals", webtest.PSPToken, map[string]any{"id": id, "status": "failed"})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Equal(t, "failure_reason", bad.ErrorParam(t))
	for i, wantDup := range []bool{false, true} {
		r := psp("/psp/withdrawals", webtest.PSPToken, map[string]any{"id": id, "status": "completed", "endToEndId": e2e})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, map[string]any{"id": id, "object": "withdrawal", "status": "completed", "duplicate": wantDup}, r.JSON(t), "call %d", i)
	}
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/" + id, Key: s.TestKey}).JSON(t)
	require.Equal(t, e2e, got["end_to_end_id"])
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "one withdrawal.completed for two notifications")
	var env struct {
		Type string `json:"type"`
		Data struct {
			Object map[string]any `json:"object"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(receiver.WaitFor(1, 5*time.Second)[0].Body, &env))
	require.Equal(t, "withdrawal.completed", env.Type)
	require.Equal(t, got, env.Data.Object)

	// Disputes arrive by the transfer that paid the charge.
	p := s.CreatePayment(map[string]any{"amount_cents": 2_000})
	payE2E := e2eID()
	outcomeOf, _ := outcome(t, pspNotify(s, webtest.PSPToken, transfer(payE2E, p["correlation_id"].(string), "20.00")), 0)
	require.Equal(t, "paid", outcomeOf)
	body := map[string]any{"id": "MED-0001", "endToEndId": payE2E, "reason": "fraud", "status": "open"}
	for _, wantDup := range []bool{false, true} {
		r := psp("/psp/disputes", webtest.PSPToken, body)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, wantDup, r.JSON(t)["duplicate"])
	}
	body["status"] = "unknown"
	require.Equal(t, "status", psp("/psp/disputes", webtest.PSPToken, body).ErrorParam(t))
	delete(body, "status")
	require.Equal(t, "parameter_missing", psp("/psp/disputes", webtest.PSPToken, body).ErrorCode(t))
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes", Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 1)
	require.Equal(t, p["id"], list[0].(map[string]any)["payment_id"])
}

// Every PSP body follows one rule: a top-level field the route does not
// document is refused, and nothing is recorded.
func TestPSPBodiesRefuseUnknownFields(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 100})
	bodies := map[string]map[string]any{
		"/psp/pix":         {"pix": []any{transfer(e2eID(), p["correlation_id"].(string), "1.00")}, "extra": true},
		"/psp/disputes":    {"id": "MED-1", "endToEndId": e2eID(), "reason": "fraud", "status": "open", "extra": true},
		"/psp/withdrawals": {"id": "wd_x", "status": "completed", "extra": true},
	}
	for path, body := range bodies {
		r := s.Do(webtest.Request{Method: "POST", Path: path, Body: body,
			Headers: map[string]string{"Authorization": "Bearer " + webtest.PSPToken}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", path, r.Body)
		require.Equal(t, "parameter_unknown", r.ErrorCode(t), path)
		require.Equal(t, "extra", r.ErrorParam(t), path)
	}
	require.Equal(t, "pending", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.TestKey}).JSON(t)["status"])
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM psp_notifications").Scan(context.Background(), &n))
	require.Zero(t, n, "refused notifications store nothing")
}
