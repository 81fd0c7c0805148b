package pspcalls_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix/apipix/sandboxtest"
	"payments/web/webtest"
)

// livePaid creates a live charge of cents, has the sandbox's payer pay it
// and waits for the credit.
func livePaid(t *testing.T, s *webtest.Server, cents int64) map[string]any {
	t.Helper()
	p := s.CreateLivePayment(map[string]any{"amount_cents": cents})
	s.PSP.Pay(p["correlation_id"].(string))
	return s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 10*time.Second)
}

// waitForRefund polls the refund until its status is want.
func waitForRefund(t *testing.T, s *webtest.Server, id, want string) map[string]any {
	t.Helper()
	var got map[string]any
	eventually(t, 15*time.Second, func() bool {
		got = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/refunds/" + id, Key: s.LiveKey}).JSON(t)
		return got["status"] == want
	}, func() string { return dumpCalls(t, s) })
	return got
}

func refund(t *testing.T, s *webtest.Server, body map[string]any) map[string]any {
	t.Helper()
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.LiveKey, Body: body})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)
}

func balance(t *testing.T, s *webtest.Server) float64 {
	return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.LiveKey}).JSON(t)["available_cents"].(float64)
}

func TestPartialThenFullRefundAreDevolucoesAtThePSP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	recv := liveWebhook(t, s, "refund.succeeded", "refund.failed", "payment.refunded")
	p := livePaid(t, s, 10_000)
	id := p["id"].(string)

	first := refund(t, s, map[string]any{"payment": id, "amount_cents": 3_000, "description": "Devolução parcial"})
	require.Equal(t, "pending", first["status"])
	require.Equal(t, float64(3_000), first["amount_cents"])
	waitForRefund(t, s, first["id"].(string), "succeeded")
	require.Equal(t, "paid", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.LiveKey}).JSON(t)["status"],
		"partly refunded is still paid")

	second := refund(t, s, map[string]any{"payment": id})
	require.Equal(t, float64(7_000), second["amount_cents"], "no amount: what is left")
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.LiveKey, Body: map[string]any{"payment": id, "amount_cents": 1}})
	require.Equal(t, http.StatusConflict, r.Status, "pending refunds count against what is left: %s", r.Body)
	waitForRefund(t, s, second["id"].(string), "succeeded")
	s.WaitForPayment(s.LiveKey, id, "refunded", 5*time.Second)

	st := s.PSP.State()
	require.Len(t, st.Devolucoes, 2, "two devoluções at the PSP")
	amounts := map[string]string{}
	for _, d := range st.Devolucoes {
		require.Equal(t, "DEVOLVIDO", d.Status)
		amounts[d.ID] = d.Valor
	}
	require.Equal(t, map[string]string{first["id"].(string)[3:]: "30.00", second["id"].(string)[3:]: "70.00"}, amounts,
		"each devolução is named by its refund (id without re_)")
	require.Zero(t, st.Counts["nonconforming"], s.PSP.Logs())

	require.ElementsMatch(t, []string{"refund.succeeded", "refund.succeeded", "payment.refunded"}, eventTypes(t, recv.WaitFor(3, 10*time.Second)))
	require.Zero(t, balance(t, s), "the whole amount went back; the fee came back with it")
	s.LedgerMatchesBalance(liveScope(s))
}

func TestRefusedDevolucaoFailsTheRefundAndReturnsTheMoney(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	recv := liveWebhook(t, s, "refund.succeeded", "refund.failed")
	p := livePaid(t, s, 5_000)
	before := balance(t, s)
	s.PSP.SetFaults(sandboxtest.Faults{RefuseDevolucoes: true, DevolucaoDelayMS: 300})

	re := refund(t, s, map[string]any{"payment": p["id"]})
	require.Equal(t, before-5_000+p["fee_cents"].(float64), balance(t, s), "a pending refund's amount has left the balance")
	failed := waitForRefund(t, s, re["id"].(string), "failed")
	require.NotEmpty(t, failed["failure_reason"])
	require.Equal(t, before, balance(t, s), "the balance is restored")
	require.Equal(t, "paid", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.LiveKey}).JSON(t)["status"])
	require.Equal(t, []string{"refund.failed"}, eventTypes(t, recv.WaitFor(1, 10*time.Second)))
	require.Equal(t, "NAO_REALIZADO", s.PSP.State().Devolucoes[0].Status)
	s.LedgerMatchesBalance(liveScope(s))

	// The money is back, so it can be refunded again.
	s.PSP.SetFaults(sandboxtest.Faults{})
	again := refund(t, s, map[string]any{"payment": p["id"]})
	waitForRefund(t, s, again["id"].(string), "succeeded")
	s.LedgerMatchesBalance(liveScope(s))
}
