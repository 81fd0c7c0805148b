// Package sandboxtest runs cmd/psp-sandbox as a separate process for tests:
// a PSP the connector reaches over HTTPS with mutual TLS and OAuth2, which
// validates every API Pix request against the official document, pays
// charges as a payer's bank and calls back like a PSP.
package sandboxtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
	"payments/pix/apipix"
)

// EnvBinary names the variable with a built psp-sandbox; `make test` sets
// it. Without it the first test builds one.
const EnvBinary = "PSP_SANDBOX_BIN"

// Chave is the platform's PIX key at the sandbox.
const Chave = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906"

// Account is the platform's account number at the sandbox, which
// recurring charges pay into.
const Account = "1234567"

// ClientID is the OAuth2 client the service is at the sandbox.
const ClientID = "payments-test"

// Binary returns the sandbox's executable (PSP_SANDBOX_BIN, or built once).
func Binary(t testing.TB) string {
	t.Helper()
	return testbin.Path(t, EnvBinary, "./cmd/psp-sandbox")
}

// Sandbox is a running sandbox.
type Sandbox struct {
	t testing.TB
	// API is the PSP's root (https://...): API Pix under /v2, /oauth/token,
	// the payout port. Payer is the payer's bank and the controls (http://...).
	API, Payer string
	// PKI is the directory of the development CA and certificates.
	PKI          string
	ClientSecret string
	cmd          *exec.Cmd
	stderr       *testbin.Buffer
	http         *http.Client
}

// Start runs a sandbox with mutual TLS on its API until the test ends.
func Start(t testing.TB) *Sandbox {
	t.Helper()
	bin := Binary(t)
	pki := t.TempDir()
	out, err := exec.Command(bin, "certs", "-dir", pki).CombinedOutput()
	require.NoError(t, err, "psp-sandbox certs: %s", out)
	sb := &Sandbox{t: t, PKI: pki, ClientSecret: "sandbox-secret-" + fmt.Sprint(time.Now().UnixNano()),
		stderr: &testbin.Buffer{}, http: &http.Client{Timeout: 10 * time.Second}}
	sb.cmd = exec.Command(bin, "serve", "-api-addr", "127.0.0.1:0", "-payer-addr", "127.0.0.1:0",
		"-tls-dir", pki, "-mtls", "-client-id", ClientID, "-chave", Chave)
	sb.cmd.Env = append(os.Environ(), "PSP_SANDBOX_CLIENT_SECRET="+sb.ClientSecret)
	sb.cmd.Stderr = sb.stderr
	// A test binary killed by its timeout takes its sandbox with it.
	sb.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := sb.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, sb.cmd.Start())
	t.Cleanup(sb.stop)
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(stdout).ReadBytes('\n')
		if err == nil {
			var addrs struct{ API, Payer string }
			if err = json.Unmarshal(line, &addrs); err == nil {
				sb.API, sb.Payer = addrs.API, addrs.Payer
			}
		}
		ready <- err
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case err := <-ready:
		require.NoError(t, err, "psp-sandbox did not start: %s", sb.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("psp-sandbox did not start: %s", sb.stderr.String())
	}
	return sb
}

func (sb *Sandbox) stop() {
	_ = sb.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = sb.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = sb.cmd.Process.Kill()
		<-done
	}
}

// Logs is what the sandbox wrote to stderr.
func (sb *Sandbox) Logs() string { return sb.stderr.String() }

// ClientConfig is how the service reaches this sandbox.
func (sb *Sandbox) ClientConfig() apipix.Config {
	return apipix.Config{
		BaseURL: sb.API + "/v2", TokenURL: sb.API + "/oauth/token", ClientID: ClientID, ClientSecret: sb.ClientSecret,
		CertFile: sb.File("service-client.pem"), KeyFile: sb.File("service-client-key.pem"), CAFile: sb.File("ca.pem"),
		Timeout: 5 * time.Second,
	}
}

// File is a path in the PKI directory (ca.pem, service-server.pem ...).
func (sb *Sandbox) File(name string) string { return filepath.Join(sb.PKI, name) }

// Faults are the sandbox's switchable misbehaviours (zero: none).
type Faults struct {
	LatencyMS             int      `json:"latency_ms,omitempty"`
	ErrorRate             float64  `json:"error_rate,omitempty"`
	ErrorsAfterProcessing bool     `json:"errors_after_processing,omitempty"`
	DropCallbacks         float64  `json:"drop_callbacks,omitempty"`
	DuplicateCallbacks    float64  `json:"duplicate_callbacks,omitempty"`
	DevolucaoDelayMS      int      `json:"devolucao_delay_ms,omitempty"`
	PayoutDelayMS         int      `json:"payout_delay_ms,omitempty"`
	RefuseDevolucoes      bool     `json:"refuse_devolucoes,omitempty"`
	RefusePayoutKeys      []string `json:"refuse_payout_keys,omitempty"`
}

// SetFaults replaces the sandbox's faults.
func (sb *Sandbox) SetFaults(f Faults) {
	sb.t.Helper()
	sb.post("/sandbox/faults", f, nil)
}

// Pay pays the charge txid in full, as a payer's bank; the sandbox then
// calls back.
func (sb *Sandbox) Pay(txid string) apipix.Pix {
	sb.t.Helper()
	var p apipix.Pix
	sb.post("/sandbox/pay", map[string]string{"txid": txid}, &p)
	return p
}

// PayCode pays the charge a "Pix copia e cola" points to.
func (sb *Sandbox) PayCode(code string) apipix.Pix {
	sb.t.Helper()
	var p apipix.Pix
	sb.post("/sandbox/pay", map[string]string{"code": code}, &p)
	return p
}

// PayStaticCode is the payer paying a static BR Code of the sandbox's
// receiver: its amount, or valor when it has none.
func (sb *Sandbox) PayStaticCode(code, valor string) apipix.Pix {
	sb.t.Helper()
	var p apipix.Pix
	sb.post("/sandbox/pay", map[string]string{"code": code, "valor": valor}, &p)
	return p
}

// Transfer books a Pix of valor naming txid with no charge behind it.
func (sb *Sandbox) Transfer(txid, valor string) apipix.Pix {
	sb.t.Helper()
	var p apipix.Pix
	sb.post("/sandbox/transfer", map[string]string{"txid": txid, "valor": valor}, &p)
	return p
}

// State is what the sandbox's bank holds.
type State struct {
	Cobs       map[string]string `json:"cobs"`
	Pix        []apipix.Pix      `json:"pix"`
	Devolucoes []struct {
		EndToEndID string `json:"endToEndId"`
		apipix.Devolucao
	} `json:"devolucoes"`
	Payouts     []apipix.Payout   `json:"payouts"`
	Webhooks    map[string]string `json:"webhooks"`
	WebhookRec  string            `json:"webhook_rec"`
	WebhookCobR string            `json:"webhook_cobr"`
	// Recs and CobRs are Pix Automático's recurrences (idRec -> status)
	// and recurring charges (txid -> status).
	Recs          map[string]string `json:"recs"`
	CobRs         map[string]string `json:"cobrs"`
	SolicRecs     map[string]string `json:"solicrecs"`
	Counts        map[string]int    `json:"counts"`
	TokenRequests int               `json:"token_requests"`
	Callbacks     map[string]int64  `json:"callbacks"`
	// Infracoes are MED 2.0's infrações, in no order.
	Infracoes []apipix.Infracao `json:"infracoes"`
	// MED are the requests for a return of a Pix sent, in no order.
	MED []apipix.MEDSolicitacao `json:"med"`
}

// State reads the sandbox's bank.
func (sb *Sandbox) State() State {
	sb.t.Helper()
	res, err := sb.http.Get(sb.Payer + "/sandbox/state")
	require.NoError(sb.t, err)
	defer res.Body.Close()
	var st State
	require.NoError(sb.t, json.NewDecoder(res.Body).Decode(&st))
	return st
}

func (sb *Sandbox) post(path string, in, out any) {
	sb.t.Helper()
	body, err := json.Marshal(in)
	require.NoError(sb.t, err)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, sb.Payer+path, bytes.NewReader(body))
	require.NoError(sb.t, err)
	req.Header.Set("Content-Type", "application/json")
	res, err := sb.http.Do(req)
	require.NoError(sb.t, err)
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	require.Equal(sb.t, http.StatusOK, res.StatusCode, "%s: %s", path, answer)
	if out != nil {
		require.NoError(sb.t, json.Unmarshal(answer, out))
	}
}

// SetDate moves the sandbox's clock to noon of date (YYYY-MM-DD) in
// Brasília; "" puts it back to now.
func (sb *Sandbox) SetDate(date string) {
	sb.t.Helper()
	var in map[string]any
	if date == "" {
		in = map[string]any{"date": nil}
	} else {
		in = map[string]any{"date": date}
	}
	sb.post("/sandbox/clock", in, nil)
}

// Payload is a due-date charge as the payer's bank reads it on the
// sandbox's date: valor.final is what it pays.
type Payload struct {
	Date    string            `json:"date"`
	Payable bool              `json:"payable"`
	Status  string            `json:"status"`
	Valor   map[string]string `json:"valor"`
}

// DuePayload reads the due-date charge txid as the payer's bank would.
func (sb *Sandbox) DuePayload(txid string) Payload {
	sb.t.Helper()
	res, err := sb.http.Get(sb.Payer + "/sandbox/cobv/" + txid + "/payload")
	require.NoError(sb.t, err)
	defer res.Body.Close()
	require.Equal(sb.t, http.StatusOK, res.StatusCode)
	var p Payload
	require.NoError(sb.t, json.NewDecoder(res.Body).Decode(&p))
	return p
}

// AnswerRec is the payer, in their bank, answering the recurrence idRec:
// "approve", "reject" or (once approved) "cancel".
func (sb *Sandbox) AnswerRec(idRec, action string) {
	sb.t.Helper()
	sb.post("/sandbox/rec/"+idRec+"/"+action, map[string]any{}, nil)
}

// SetBalanceShort makes the payer's balance fall short of every debit (or not).
func (sb *Sandbox) SetBalanceShort(short bool) {
	sb.t.Helper()
	sb.post("/sandbox/balance", map[string]bool{"short": short}, nil)
}

// DebitCobR runs the recurring charge txid's scheduled attempt now.
func (sb *Sandbox) DebitCobR(txid string) apipix.CobR {
	sb.t.Helper()
	var c apipix.CobR
	sb.post("/sandbox/cobr/"+txid+"/debit", map[string]any{}, &c)
	return c
}

// ReportInfracao is a payer's bank reporting the Pix e2eid received here
// (MED 2.0) for motivo, claiming valor ("" for all of it).
func (sb *Sandbox) ReportInfracao(e2eid, motivo, valor string) apipix.Infracao {
	sb.t.Helper()
	var inf apipix.Infracao
	sb.post("/sandbox/infracoes", map[string]string{"endToEndId": e2eid, "motivo": motivo, "valor": valor}, &inf)
	return inf
}

// DecideInfracao is the institutions deciding the infração id now:
// apipix.ResultadoDevolver or apipix.ResultadoManter.
func (sb *Sandbox) DecideInfracao(id, resultado string) apipix.Infracao {
	sb.t.Helper()
	var inf apipix.Infracao
	sb.post("/sandbox/infracoes/"+id+"/decisao", map[string]string{"resultado": resultado}, &inf)
	return inf
}

// DecideMED is the receiving institution answering the request id for a
// return: valorDevolvido comes back ("0.00": refused).
func (sb *Sandbox) DecideMED(id, valorDevolvido string) apipix.MEDSolicitacao {
	sb.t.Helper()
	var m apipix.MEDSolicitacao
	sb.post("/sandbox/med/"+id+"/resultado", map[string]string{"valorDevolvido": valorDevolvido}, &m)
	return m
}
