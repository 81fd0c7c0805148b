package handlers_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

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
	require.Equal(t, []string{"payment.created", "payment.paid"}, eventTypes(t, s, p["id"].(string)), "exactly one payment.paid")

	// A second, different transfer for the paid charge is real money: recorded for support.
	got, _ = outcome(t, pspNotify(s, webtest.PSPToken, transfer(e2eID(), txid, "129.90")), 0)
	require.Equal(t, "already_paid", got)
	require.Equal(t, []string{"payment.created", "payment.paid"}, eventTypes(t, s, p["id"].(string)))
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
	require.Equal(t, []string{"payment.created", "payment.paid"}, eventTypes(t, s, p["id"].(string)))
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
