package webtest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/pspcalls"
	"payments/pix/apipix"
	"payments/pix/apipix/sandboxtest"
	"payments/store"
	"payments/web"
)

// PSPOptions shape live mode against the sandbox.
type PSPOptions struct {
	// MTLS makes the server terminate TLS and take the sandbox's callbacks
	// at /psp/webhook/pix by its client certificate; without it the server
	// is plain HTTP and the callbacks come to /psp/webhook/{token}/pix.
	MTLS bool
	// Worker tunes the PSP worker; NoWorker starts none (the test runs one
	// itself, in this process with RunOnce or apart).
	Worker   pspcalls.Config
	NoWorker bool
	// ChargeWait bounds a live creation's wait for its charge.
	ChargeWait time.Duration
}

// WithPSP turns live mode on against a psp-sandbox process of the test's own.
func WithPSP(po PSPOptions) Option {
	return func(o *Options) { o.PSP = &po }
}

// PSP is the live side of a test server.
type PSP struct {
	*sandboxtest.Sandbox
	// Client is the service's API Pix client, configured as the server's.
	Client *apipix.Client
	// Worker sends the queued calls (running unless NoWorker).
	Worker *pspcalls.Worker
	// WorkerConfig is the worker's configuration, for a test that runs one apart.
	WorkerConfig pspcalls.Config
	// CallbackURL is the webhookUrl registered at the sandbox.
	CallbackURL string
}

// startPSP connects the service to the sandbox, registers the callback
// address (as `payments psp register-webhook` does) and starts the worker.
func (s *Server) startPSP(sb *sandboxtest.Sandbox, log *slog.Logger) *PSP {
	t := s.t
	client, err := apipix.New(sb.ClientConfig())
	require.NoError(t, err)
	p := &PSP{Sandbox: sb, Client: client}
	p.CallbackURL = s.URL + "/psp/webhook"
	if !s.opts.PSP.MTLS {
		p.CallbackURL += "/" + s.opts.Config.CallbackToken
	}
	require.NoError(t, client.PutWebhook(context.Background(), sandboxtest.Chave, p.CallbackURL))
	require.NoError(t, client.PutWebhookRec(context.Background(), p.CallbackURL))
	require.NoError(t, client.PutWebhookCobR(context.Background(), p.CallbackURL))
	cfg := s.opts.PSP.Worker
	cfg.Key, cfg.DatabaseURL, cfg.Now, cfg.Metrics = sandboxtest.Chave, s.DBURL, s.opts.Now, s.Metrics
	cfg.Account = apipix.CobRRecebedor{Conta: sandboxtest.Account, TipoConta: "CORRENTE"}
	p.WorkerConfig = cfg
	p.Worker = pspcalls.New(cfg, s.Store, client, log)
	if !s.opts.PSP.NoWorker {
		p.Worker.Start(context.Background())
		t.Cleanup(p.Worker.Stop)
	}
	return p
}

// serveTLS wraps ln in the server's TLS: the sandbox's development
// certificate for the service, verifying client certificates of its CA.
func serveTLS(t testing.TB, ln net.Listener, sb *sandboxtest.Sandbox) net.Listener {
	cfg, err := web.ServerTLS(sb.File("service-server.pem"), sb.File("service-server-key.pem"), sb.File("ca.pem"))
	require.NoError(t, err)
	return tls.NewListener(ln, cfg)
}

// trusting is a client TLS configuration that trusts the sandbox's CA.
func trusting(t testing.TB, sb *sandboxtest.Sandbox) *tls.Config {
	pem, err := os.ReadFile(sb.File("ca.pem"))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// CreateLivePayment creates a live payment and returns its body, once the
// PSP registered its charge.
func (s *Server) CreateLivePayment(body any) map[string]any {
	s.t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey, Body: body})
	require.Equal(s.t, http.StatusCreated, r.Status, "body: %s", r.Body)
	return r.JSON(s.t)
}

// WaitForPayment polls the payment until its status is want.
func (s *Server) WaitForPayment(key, id, want string, within time.Duration) map[string]any {
	s.t.Helper()
	var last map[string]any
	require.Eventually(s.t, func() bool {
		r := s.DoRaw(Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: key})
		_ = json.Unmarshal(r.Body, &last)
		return last["status"] == want
	}, within, 20*time.Millisecond, "payment %s never became %s: %v", id, want, last)
	return last
}

// LedgerMatchesBalance asserts the scope's ledger sums to its balance,
// available and pending.
func (s *Server) LedgerMatchesBalance(scope store.Scope) {
	s.t.Helper()
	var sums struct {
		LedgerAvailable  int64 `bun:"ledger_available"`
		LedgerPending    int64 `bun:"ledger_pending"`
		BalanceAvailable int64 `bun:"balance_available"`
		BalancePending   int64 `bun:"balance_pending"`
	}
	err := s.DB.NewRaw(`SELECT
		coalesce(sum(amount_cents) FILTER (WHERE balance = 'available'), 0) AS ledger_available,
		coalesce(sum(amount_cents) FILTER (WHERE balance = 'pending'), 0) AS ledger_pending,
		coalesce((SELECT available_cents FROM balances WHERE account_id = ?0 AND livemode = ?1), 0) AS balance_available,
		coalesce((SELECT pending_cents FROM balances WHERE account_id = ?0 AND livemode = ?1), 0) AS balance_pending
		FROM ledger_entries WHERE account_id = ?0 AND livemode = ?1`, scope.AccountID, scope.Livemode).Scan(context.Background(), &sums)
	require.NoError(s.t, err)
	require.Equal(s.t, sums.LedgerAvailable, sums.BalanceAvailable, "the ledger adds up to the available balance")
	require.Equal(s.t, sums.LedgerPending, sums.BalancePending, "the ledger adds up to the pending balance")
}
