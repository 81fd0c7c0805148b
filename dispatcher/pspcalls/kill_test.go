package pspcalls_test

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
	"payments/pix/apipix/sandboxtest"
	"payments/web/webtest"
)

// startWorker starts `payments serve --dispatcher` for a test server: the
// webhook dispatcher and the PSP worker in a process of their own.
func startWorker(t *testing.T, s *webtest.Server) *testbin.Process {
	t.Helper()
	cc := s.PSP.ClientConfig()
	env := map[string]string{
		"DATABASE_URL": s.DBURL, "SECRET_KEY": hex.EncodeToString(s.SecretKey), "BASE_URL": s.URL, "LOG_LEVEL": "debug",
		"PIX_KEY": sandboxtest.Chave, "PSP_ACCOUNT_NUMBER": sandboxtest.Account, "PSP_BASE_URL": cc.BaseURL, "PSP_TOKEN_URL": cc.TokenURL,
		"PSP_CLIENT_ID": cc.ClientID, "PSP_CLIENT_SECRET": cc.ClientSecret,
		"PSP_CERT_FILE": cc.CertFile, "PSP_KEY_FILE": cc.KeyFile, "PSP_CA_FILE": cc.CAFile,
		// A killed worker's leases run out soon, so the next one takes over.
		"PSP_CALL_LEASE": "2s", "PSP_TIMEOUT": "1s", "PSP_RECONCILE_INTERVAL": "2s", "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
	}
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	return testbin.Start(t, testbin.Path(t, "PAYMENTS_BIN", "./cmd/payments"), environ, "serve", "--dispatcher")
}

func TestWorkerKilledMidwayMakesOneDevolucaoPerRefund(t *testing.T) {
	t.Parallel()
	const n = 30
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{NoWorker: true, ChargeWait: 20 * time.Second}))
	first := startWorker(t, s)

	paid := make([]map[string]any, n)
	each(n, 10, func(i int) {
		p := s.CreateLivePayment(map[string]any{"amount_cents": 2_000 + i})
		s.PSP.Pay(p["correlation_id"].(string))
		paid[i] = p
	})
	for _, p := range paid {
		s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 20*time.Second)
	}

	// Slow devoluções and lost answers, so the kill lands mid-flight.
	s.PSP.SetFaults(sandboxtest.Faults{LatencyMS: 150, ErrorRate: 0.3, ErrorsAfterProcessing: true, DevolucaoDelayMS: 1_500})
	ids := make([]string, n)
	each(n, 10, func(i int) {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.LiveKey,
			Body: map[string]any{"payment": paid[i]["id"], "amount_cents": 1_000}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ids[i] = r.JSON(t)["id"].(string)
	})
	eventually(t, 20*time.Second, func() bool { return s.PSP.State().Counts["devolucao"] >= n/3 },
		func() string { return fmt.Sprint(s.PSP.State().Counts) })
	first.Kill(t)
	atKill := s.PSP.State().Counts["devolucao"]
	t.Logf("killed the worker with %d of %d devoluções at the PSP", atKill, n)
	require.Less(t, atKill, n, "the kill came in the middle")

	second := startWorker(t, s)
	s.PSP.SetFaults(sandboxtest.Faults{})
	for _, id := range ids {
		waitForRefund(t, s, id, "succeeded")
	}
	st := s.PSP.State()
	require.Len(t, st.Devolucoes, n, "exactly one devolução per refund")
	for _, d := range st.Devolucoes {
		require.Equal(t, "10.00", d.Valor)
	}
	require.Equal(t, n, st.Counts["devolucao"])
	s.LedgerMatchesBalance(liveScope(s))

	// Nothing the worker logged, nor the service, holds a secret.
	for name, logs := range map[string]string{"first worker": first.Logs.String(), "second worker": second.Logs.String(), "service": s.Logs.String()} {
		for _, secret := range []string{s.PSP.ClientSecret, s.LiveKey, s.TestKey, "Bearer ", "BEGIN EC PRIVATE KEY"} {
			require.NotContains(t, logs, secret, "%s logs", name)
		}
	}
	require.Contains(t, first.Logs.String(), `"msg":"live mode on"`)
}
