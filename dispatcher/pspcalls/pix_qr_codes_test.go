package pspcalls_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store/storetest"
	"payments/web/webtest"
)

// A live static code paid at the payer's bank through the PSP sandbox:
// twice at its fixed amount (each a payment of its own, paid once the PSP
// confirms the Pix), an open code at the amount the payer typed; a Pix of
// another amount to the fixed code pays nothing and waits for support, and
// so does a Pix to the open code once it is deactivated.
func TestLiveStaticCodeIsPaidManyTimes(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dumpCalls(t, s))
			t.Log(s.PSP.Logs())
		}
	})
	create := func(body map[string]any) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes", Key: s.LiveKey, Body: body})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	fixed := create(map[string]any{"amount_cents": 1_500, "description": "Pão de queijo"})
	open := create(map[string]any{"description": "Doações"})
	s.PSP.PayStaticCode(fixed["br_code"].(string), "")
	s.PSP.PayStaticCode(fixed["br_code"].(string), "")
	s.PSP.PayStaticCode(open["br_code"].(string), "7.77")
	wrong := s.PSP.Transfer(fixed["txid"].(string), "14.00")

	payments := func(code string, n int) []any {
		t.Helper()
		var list []any
		eventually(t, 15*time.Second, func() bool {
			list = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?pix_qr_code=" + code, Key: s.LiveKey}).JSON(t)["data"].([]any)
			return len(list) == n
		}, func() string { return dumpCalls(t, s) })
		return list
	}
	for _, p := range payments(fixed["id"].(string), 2) {
		p := p.(map[string]any)
		require.Equal(t, []any{"paid", true, 1_500.0, "Pão de queijo"}, []any{p["status"], p["livemode"], p["amount_paid_cents"], p["description"]})
	}
	openPaid := payments(open["id"].(string), 1)[0].(map[string]any)
	require.Equal(t, 777.0, openPaid["amount_paid_cents"])
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/pix_qr_codes/" + fixed["id"].(string), Key: s.LiveKey}).JSON(t)
	require.Equal(t, []any{2.0, 3_000.0}, []any{got["payments"], got["amount_received_cents"]})
	eventually(t, 15*time.Second, func() bool {
		n, err := s.Store.PixNotification(t.Context(), wrong.EndToEndID)
		return err == nil && n.Outcome == "unknown_txid" && n.PaymentID == nil
	}, func() string { return dumpCalls(t, s) })
	require.Len(t, payments(fixed["id"].(string), 2), 2, "the Pix of another amount paid nothing")

	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes/" + open["id"].(string) + "/deactivate", Key: s.LiveKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "disabled", r.JSON(t)["status"])
	late := s.PSP.Transfer(open["txid"].(string), "5.00")
	eventually(t, 15*time.Second, func() bool {
		n, err := s.Store.PixNotification(t.Context(), late.EndToEndID)
		return err == nil && n.Outcome == "unknown_txid" && n.PaymentID == nil
	}, func() string { return dumpCalls(t, s) })
	require.Len(t, payments(open["id"].(string), 1), 1, "the Pix to the deactivated code paid nothing")

	require.Zero(t, s.PSP.State().Counts["nonconforming"], "%s", s.PSP.Logs())
	s.LedgerMatchesBalance(liveScope(s))
	broken, err := storetest.MoneyViolations(t.Context(), s.DB, liveScope(s))
	require.NoError(t, err)
	require.Empty(t, broken)
}
