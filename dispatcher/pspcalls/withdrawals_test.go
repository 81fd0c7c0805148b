package pspcalls_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix/apipix/sandboxtest"
	"payments/web/webtest"
)

func withdraw(t *testing.T, s *webtest.Server, cents int64, key string) map[string]any {
	t.Helper()
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.LiveKey,
		Body: map[string]any{"amount_cents": cents, "pix_key": key, "description": "Saque"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)
}

func waitForWithdrawal(t *testing.T, s *webtest.Server, id, want string) map[string]any {
	t.Helper()
	var got map[string]any
	eventually(t, 15*time.Second, func() bool {
		got = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/" + id, Key: s.LiveKey}).JSON(t)
		return got["status"] == want
	}, func() string { return dumpCalls(t, s) })
	return got
}

func TestWithdrawalsArePaidOutByThePSP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	recv := liveWebhook(t, s, "withdrawal.completed", "withdrawal.failed")
	livePaid(t, s, 20_000)
	start := balance(t, s)
	refusedKey := "ana@example.com"
	s.PSP.SetFaults(sandboxtest.Faults{RefusePayoutKeys: []string{refusedKey}, PayoutDelayMS: 200})

	ok := withdraw(t, s, 5_000, "529.982.247-25")
	bad := withdraw(t, s, 3_000, refusedKey)
	require.Equal(t, start-8_000, balance(t, s), "both amounts left the balance at once")

	done := waitForWithdrawal(t, s, ok["id"].(string), "completed")
	require.Regexp(t, `^E[0-9A-Za-z]{31}$`, done["end_to_end_id"], "the payout's endToEndId")
	failed := waitForWithdrawal(t, s, bad["id"].(string), "failed")
	require.NotEmpty(t, failed["failure_reason"])
	require.Equal(t, start-5_000, balance(t, s), "the refused payout's money came back")
	require.ElementsMatch(t, []string{"withdrawal.completed", "withdrawal.failed"}, eventTypes(t, recv.WaitFor(2, 10*time.Second)))

	st := s.PSP.State()
	require.Len(t, st.Payouts, 2)
	byID := map[string]string{}
	for _, p := range st.Payouts {
		byID[p.IDEnvio] = p.Status
	}
	require.Equal(t, map[string]string{ok["id"].(string)[3:]: "REALIZADO", bad["id"].(string)[3:]: "NAO_REALIZADO"}, byID,
		"each payout is named by its withdrawal (id without wd_)")
	s.LedgerMatchesBalance(liveScope(s))
}
