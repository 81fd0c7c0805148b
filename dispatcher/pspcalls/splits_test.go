package pspcalls_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/storetest"
	"payments/web/webtest"
)

// Live, through the sandbox: a platform's charge split with a subaccount
// is paid by the payer's bank (the split credited in the confirmation's
// transaction), then half refunded by a devolução at the PSP: the seller
// gives back half its part. Every account's money model holds.
func TestLiveSplitChargePaidAndHalfRefunded(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.LiveKey, Body: map[string]any{
		"name": "Padaria", "document": "12.ABC.345/01DE-35", "email": "padaria@example.com", "pix_key": "padaria@example.com"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	seller := r.JSON(t)["id"].(string)
	sellerBalance := func() float64 {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.LiveKey,
			Headers: map[string]string{"Payments-Account": seller}}).JSON(t)["available_cents"].(float64)
	}

	p := s.CreateLivePayment(map[string]any{"amount_cents": 10_000, "splits": []any{map[string]any{"account": seller, "percent": 30}}})
	s.PSP.Pay(p["correlation_id"].(string))
	paid := s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 10*time.Second)
	fee := paid["fee_cents"].(float64)
	require.Equal(t, 3_000.0, paid["splits"].([]any)[0].(map[string]any)["net_cents"])
	require.Equal(t, []float64{3_000, 10_000 - fee - 3_000}, []float64{sellerBalance(), balance(t, s)})

	half := refund(t, s, map[string]any{"payment": p["id"], "amount_cents": 5_000})
	waitForRefund(t, s, half["id"].(string), "succeeded")
	require.Equal(t, []float64{1_500, 10_000 - fee - 3_000 - (5_000 - half["fee_cents"].(float64) - 1_500)}, []float64{sellerBalance(), balance(t, s)})
	require.Len(t, s.PSP.State().Devolucoes, 1)
	require.Zero(t, s.PSP.State().Counts["nonconforming"], "%s", s.PSP.Logs())
	for _, scope := range []store.Scope{liveScope(s), {AccountID: seller, Livemode: true}} {
		s.LedgerMatchesBalance(scope)
		broken, err := storetest.MoneyViolations(t.Context(), s.DB, scope)
		require.NoError(t, err)
		require.Empty(t, broken)
	}
	broken, err := storetest.SplitViolations(t.Context(), s.DB, liveScope(s))
	require.NoError(t, err)
	require.Empty(t, broken)
}
