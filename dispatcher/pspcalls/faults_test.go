package pspcalls_test

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/pspcalls"
	"payments/pix/apipix/sandboxtest"
	"payments/store/storetest"
	"payments/web/webtest"
)

// faulty is the PSP of the acceptance: 30% of calls answered 503 (half of
// those after doing the work), 300 ms on every call, half the callbacks
// dropped and a fifth sent twice, devoluções and payouts slow.
var faulty = sandboxtest.Faults{LatencyMS: 300, ErrorRate: 0.3, ErrorsAfterProcessing: true,
	DropCallbacks: 0.5, DuplicateCallbacks: 0.2, DevolucaoDelayMS: 500, PayoutDelayMS: 500}

// each runs fn for 0..n-1 on width goroutines.
func each(n, width int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range width {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// createWhileFaulty creates a live payment the way an integrator must
// while the PSP fails: retrying with the same Idempotency-Key on 503.
func createWhileFaulty(t *testing.T, s *webtest.Server, key string, cents int) map[string]any {
	for {
		r := s.DoRaw(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey,
			Body: map[string]any{"amount_cents": cents}, Headers: map[string]string{"Idempotency-Key": key}})
		switch r.Status {
		case http.StatusCreated:
			return r.JSON(t)
		case http.StatusServiceUnavailable, http.StatusConflict: // still at the PSP, or the first try still running
			time.Sleep(200 * time.Millisecond)
		default:
			t.Errorf("create %s: %d %s", key, r.Status, r.Body)
			return nil
		}
	}
}

func TestFaultyPSPLosesNoMoneyAndDuplicatesNothing(t *testing.T) {
	t.Parallel()
	const payments, refunds, withdrawals = 500, 40, 20
	const reconcile = 5 * time.Second
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{ChargeWait: 2 * time.Second,
		Worker: pspcalls.Config{Workers: 32, ReconcileInterval: reconcile}}))
	s.PSP.SetFaults(faulty)
	began := time.Now()

	created := make([]map[string]any, payments)
	each(payments, 32, func(i int) { created[i] = createWhileFaulty(t, s, fmt.Sprintf("order-%d", i), 1_000+i) })
	require.False(t, t.Failed())
	var slow []map[string]any
	require.NoError(t, s.DB.NewRaw(`SELECT attempts, count(*) AS n, max(completed_at - created_at)::text AS took FROM psp_calls
		WHERE kind = 'cob.create' GROUP BY attempts ORDER BY attempts`).Scan(t.Context(), &slow))
	t.Logf("%s: %d created; charges by attempts: %v", time.Since(began), payments, slow)
	each(payments, 16, func(i int) { s.PSP.Pay(created[i]["correlation_id"].(string)) })

	// While the PSP still fails: refunds of payments already credited, and withdrawals.
	var paid []map[string]any
	eventually(t, 60*time.Second, func() bool {
		list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?status=paid&limit=100", Key: s.LiveKey}).JSON(t)["data"].([]any)
		paid = paid[:0]
		for _, p := range list {
			paid = append(paid, p.(map[string]any))
		}
		return len(paid) >= refunds
	}, func() string { return fmt.Sprintf("%d paid", len(paid)) })
	t.Logf("%s: %d paid", time.Since(began), len(paid))
	refundIDs := make([]string, refunds)
	each(refunds, 8, func(i int) {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.LiveKey,
			Body: map[string]any{"payment": paid[i]["id"], "amount_cents": 500}, Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("refund-%d", i)}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		refundIDs[i] = r.JSON(t)["id"].(string)
	})
	withdrawalIDs := make([]string, withdrawals)
	each(withdrawals, 4, func(i int) {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.LiveKey,
			Body: map[string]any{"amount_cents": 100, "pix_key": "+5561988880000"}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		withdrawalIDs[i] = r.JSON(t)["id"].(string)
	})

	// The faults last until every devolução and payout was tried at least once.
	untried := func() int {
		var n int
		require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM psp_calls WHERE kind IN ('devolucao.create', 'payout.create') AND attempts = 0").
			Scan(t.Context(), &n))
		return n
	}
	eventually(t, 30*time.Second, func() bool { return untried() == 0 }, func() string { return fmt.Sprint(untried(), " untried") })
	t.Logf("%s: refunds and withdrawals created and tried; %s", time.Since(began), dumpCallCounts(t, s))
	s.PSP.SetFaults(sandboxtest.Faults{})
	stopped := time.Now()
	unpaid := func() int {
		var n int
		require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments WHERE livemode AND status = 'pending'").Scan(t.Context(), &n))
		return n
	}
	eventually(t, reconcile+15*time.Second, func() bool { return unpaid() == 0 }, func() string {
		return fmt.Sprintf("%d not paid %s after the faults stopped", unpaid(), time.Since(stopped))
	})
	allPaid := time.Since(stopped)
	t.Logf("all %d paid %s after the faults stopped (reconciler period %s); sandbox: %v", payments, allPaid, reconcile, s.PSP.State().Counts)
	require.LessOrEqual(t, allPaid, reconcile+3*time.Second, "within one reconciler period (and its walk)")

	for _, id := range refundIDs {
		waitForRefund(t, s, id, "succeeded")
	}
	for _, id := range withdrawalIDs {
		waitForWithdrawal(t, s, id, "completed")
	}

	// Exactly one credit per transfer and one payment.paid per payment.
	var credits, paidEvents, charges int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM psp_notifications WHERE outcome = 'paid'").Scan(t.Context(), &credits))
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM events WHERE type = 'payment.paid'").Scan(t.Context(), &paidEvents))
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments WHERE livemode").Scan(t.Context(), &charges))
	require.Equal(t, payments, credits)
	require.Equal(t, payments, paidEvents)
	require.Equal(t, payments, charges, "one payment per Idempotency-Key")

	// Exactly one devolução per refund and one payout per withdrawal at the PSP.
	st := s.PSP.State()
	require.Len(t, st.Cobs, payments, "one charge per payment")
	require.Len(t, st.Devolucoes, refunds)
	seen := map[string]bool{}
	for _, d := range st.Devolucoes {
		seen["re_"+d.ID] = true
		require.Equal(t, "5.00", d.Valor)
	}
	for _, id := range refundIDs {
		require.True(t, seen[id], "refund %s has its devolução", id)
	}
	require.Len(t, st.Payouts, withdrawals)
	require.Zero(t, st.Counts["nonconforming"], "every request conformed to API Pix 2.9.0")
	t.Logf("repeated calls answered idempotently: %d devoluções, %d payouts", st.Counts["devolucao_repeat"], st.Counts["payout_repeat"])
	s.LedgerMatchesBalance(liveScope(s))
}

func dumpCallCounts(t *testing.T, s *webtest.Server) string {
	counts, err := storetest.PSPCallsByStatus(t.Context(), s.DB)
	require.NoError(t, err)
	return fmt.Sprint(counts)
}
