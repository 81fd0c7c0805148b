package pspcalls_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"payments/pix/apipix/sandboxtest"
	"payments/web/webtest"
)

// The database goes away while devoluções are in flight at the PSP (their
// finishes fail) and comes back 3 s later: the finishes are retried rather
// than left to their leases (a minute), so every call leased when the
// database went is finished or taken again within 5 s of it answering, and
// each refund still makes exactly one devolução.
func TestPSPCallsResumeQuicklyAfterDatabaseOutage(t *testing.T) {
	t.Parallel()
	const n = 12
	s := webtest.New(t, webtest.WithDBProxy(), webtest.WithPSP(webtest.PSPOptions{ChargeWait: 20 * time.Second}))
	paid := make([]map[string]any, n)
	each(n, 6, func(i int) {
		p := s.CreateLivePayment(map[string]any{"amount_cents": 3_000 + i})
		s.PSP.Pay(p["correlation_id"].(string))
		paid[i] = p
	})
	for _, p := range paid {
		s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 20*time.Second)
	}

	// Slow answers, so that calls are at the PSP when the database goes.
	s.PSP.SetFaults(sandboxtest.Faults{LatencyMS: 1_000})
	ids := make([]string, n)
	each(n, 6, func(i int) {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.LiveKey,
			Body: map[string]any{"payment": paid[i]["id"], "amount_cents": 1_000}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ids[i] = r.JSON(t)["id"].(string)
	})
	// The test reads the database around the proxy, which only the service goes through.
	direct, err := pgx.Connect(t.Context(), s.DBURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = direct.Close(context.Background()) })
	leases := func() map[string]string {
		rows, err := direct.Query(t.Context(), "SELECT id, lease_token FROM psp_calls WHERE lease_token IS NOT NULL")
		require.NoError(t, err)
		held, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (kv [2]string, err error) {
			err = r.Scan(&kv[0], &kv[1])
			return kv, err
		})
		require.NoError(t, err)
		out := map[string]string{}
		for _, kv := range held {
			out[kv[0]] = kv[1]
		}
		return out
	}
	eventually(t, 10*time.Second, func() bool { return len(leases()) > 0 }, func() string { return "no call leased" })

	s.DBProxy.Cut()
	cut := leases()
	time.Sleep(3 * time.Second)
	s.DBProxy.Restore()
	back := time.Now()
	t.Logf("%d calls leased when the database went", len(cut))
	stuck := func() []string {
		now := leases()
		var out []string
		for id, token := range cut {
			if now[id] == token {
				out = append(out, id)
			}
		}
		return out
	}
	eventually(t, 5*time.Second, func() bool { return len(stuck()) == 0 },
		func() string {
			return fmt.Sprintf("calls still under the lease they had when the database went: %v", stuck())
		})
	t.Logf("every call leased during the outage finished or taken again %s after the database came back",
		time.Since(back).Round(time.Millisecond))

	s.PSP.SetFaults(sandboxtest.Faults{})
	for _, id := range ids {
		waitForRefund(t, s, id, "succeeded")
	}
	require.Len(t, s.PSP.State().Devolucoes, n, "exactly one devolução per refund")
	s.LedgerMatchesBalance(liveScope(s))
}
