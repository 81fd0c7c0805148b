package psp_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/pix/apipix"
	"payments/store"
	"payments/web/webtest"
)

func e2eID() string { return "E" + pix.RandomBase62(31) }

// callbackPath is where the sandbox posts this server's callbacks.
func callbackPath(s *webtest.Server) string {
	return strings.TrimPrefix(s.PSP.CallbackURL, s.URL) + "/pix"
}

// callback posts an API Pix callback body as the PSP would.
func callback(s *webtest.Server, path string, items ...map[string]any) *webtest.Response {
	return s.Do(webtest.Request{Method: "POST", Path: path, Body: map[string]any{"pix": items}})
}

// livePaid creates a live charge, has the sandbox pay it and waits for the
// credit; it returns the payment and the Pix that paid it.
func livePaid(t *testing.T, s *webtest.Server, cents int64) (map[string]any, apipix.Pix) {
	t.Helper()
	p := s.CreateLivePayment(map[string]any{"amount_cents": cents})
	paid := s.PSP.Pay(p["correlation_id"].(string))
	return s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 10*time.Second), paid
}

// credits counts the transfers that paid a payment.
func credits(t *testing.T, s *webtest.Server) int {
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM psp_notifications WHERE outcome = 'paid'").Scan(context.Background(), &n))
	return n
}

// settled waits until no PSP call is due or running.
func settled(t *testing.T, s *webtest.Server) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM psp_calls WHERE status = 'pending' AND next_attempt_at <= now() + interval '1 second'").
			Scan(context.Background(), &n))
		return n == 0
	}, 10*time.Second, 20*time.Millisecond)
}

func TestCallbackIsAHintConfirmedWithThePSP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	path := callbackPath(s)
	p, paid := livePaid(t, s, 4_200)
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(p["id"].(string)))

	// A replay of the genuine callback queues nothing new and credits nothing more.
	replay := callback(s, path, map[string]any{"endToEndId": paid.EndToEndID, "txid": paid.TxID, "valor": paid.Valor})
	require.Equal(t, http.StatusOK, replay.Status, "%s", replay.Body)
	require.Equal(t, map[string]any{"received": float64(1), "queued": float64(0)}, replay.JSON(t))

	// A forged callback: a transfer the PSP never received. It is queued,
	// asked about, and credits nothing.
	forged := e2eID()
	r := callback(s, path, map[string]any{"endToEndId": forged, "txid": p["correlation_id"], "valor": "42.00"})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, float64(1), r.JSON(t)["queued"])
	settled(t, s)
	var call store.PSPCall
	require.NoError(t, s.DB.NewSelect().Model(&call).Where("object_id = ?", forged).Scan(context.Background()))
	require.Equal(t, store.CallFailed, call.Status)
	require.Contains(t, *call.LastError, "no such Pix")

	// A callback that names the genuine transfer with another charge's txid
	// and amount: the PSP's word is what counts.
	other := s.CreateLivePayment(map[string]any{"amount_cents": 100})
	callback(s, path, map[string]any{"endToEndId": paid.EndToEndID, "txid": other["correlation_id"], "valor": "1.00"})
	settled(t, s)
	require.Equal(t, "pending", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + other["id"].(string), Key: s.LiveKey}).JSON(t)["status"])
	require.Equal(t, 1, credits(t, s), "one credit, ever, per endToEndId")
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(p["id"].(string)))
	s.LedgerMatchesBalance(store.Scope{AccountID: s.Account.ID, Livemode: true})
}

func TestWrongAmountIsRecordedNotPaid(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	p := s.CreateLivePayment(map[string]any{"amount_cents": 1_000})
	wrong := s.PSP.Transfer(p["correlation_id"].(string), "9.99")
	unknown := s.PSP.Transfer("UNKNOWNTXID0000000000000000", "10.00")
	for _, e2e := range []string{wrong.EndToEndID, unknown.EndToEndID} {
		require.Equal(t, http.StatusOK, callback(s, callbackPath(s), map[string]any{"endToEndId": e2e}).Status)
	}
	settled(t, s)
	require.Equal(t, "pending", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.LiveKey}).JSON(t)["status"],
		"a wrong amount never pays silently")
	problems, err := s.Store.PixNotifications(context.Background(), true, 10)
	require.NoError(t, err)
	outcomes := map[string]string{}
	for _, n := range problems {
		outcomes[n.EndToEndID] = n.Outcome
		require.Contains(t, string(n.Raw), `"infoPagador"`, "the transfer is kept as the PSP reported it")
	}
	require.Equal(t, map[string]string{wrong.EndToEndID: store.PixAmountMismatch, unknown.EndToEndID: store.PixUnknownTxID}, outcomes)
}

func TestConcurrentDuplicateCallbacksCreditOnce(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	p, paid := livePaid(t, s, 500)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			r := callback(s, callbackPath(s), map[string]any{"endToEndId": paid.EndToEndID})
			require.Equal(t, http.StatusOK, r.Status)
		})
	}
	wg.Wait()
	settled(t, s)
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(p["id"].(string)))
	require.Equal(t, 1, credits(t, s))
}

func TestCallbackAuthenticationAndValidation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	item := map[string]any{"endToEndId": e2eID()}
	for _, path := range []string{"/psp/webhook/wrong-token/pix", "/psp/webhook/pix"} {
		r := callback(s, path, item)
		require.Equal(t, http.StatusUnauthorized, r.Status, path)
		require.Equal(t, "psp_callback_unauthenticated", r.ErrorCode(t), "%s: no client certificate on a plain-HTTP server", path)
	}
	path := callbackPath(s)
	cases := []struct {
		body  any
		param string
	}{
		{map[string]any{"pix": []any{map[string]any{"endToEndId": "short"}}}, "pix[0].endToEndId"},
		{map[string]any{"pix": []any{map[string]any{"idEnvio": "not valid!"}}}, "pix[0].idEnvio"},
		{map[string]any{"pix": []any{}}, "pix"},
		{map[string]any{"pix": "nope"}, "pix"},
		{map[string]any{"pix": []any{item}, "extra": true}, "extra"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "POST", Path: path, Body: c.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.body, r.Body)
		require.Equal(t, c.param, r.ErrorParam(t))
	}
	r := s.Do(webtest.Request{Method: "POST", Path: path, Body: "{not json"})
	require.Equal(t, http.StatusBadRequest, r.Status)
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM psp_calls WHERE kind = 'pix.confirm'").Scan(context.Background(), &n))
	require.Zero(t, n, "refused callbacks queue nothing")
	require.NotContains(t, s.Logs.String(), s.PSP.CallbackURL[len(s.URL):], "the path token is never logged")
}

// Where the service terminates TLS, the PSP's callbacks are recognized by
// its client certificate: none, or one of another CA, gets nothing in.
func TestCallbacksOverMutualTLS(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{MTLS: true}))
	require.True(t, strings.HasPrefix(s.URL, "https://"))
	_, paid := livePaid(t, s, 700) // the sandbox's callback came in with its certificate

	post := func(client *http.Client) (*http.Response, error) {
		return client.Post(s.URL+"/psp/webhook/pix", "application/json",
			strings.NewReader(`{"pix":[{"endToEndId":"`+paid.EndToEndID+`"}]}`))
	}
	res, err := post(s.Client)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "no client certificate")

	stranger := s.Client.Transport.(*http.Transport).Clone()
	strange := webtest.NewCA(t, "Outra CA").Client(t, "not the PSP", time.Now().Add(time.Hour)).Pair
	// Sent whatever CAs the server names (Go would otherwise send none).
	stranger.TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &strange, nil }
	res, err = post(&http.Client{Transport: stranger, Timeout: 5 * time.Second})
	if err == nil {
		res.Body.Close()
	}
	require.Error(t, err, "a certificate of another CA fails the handshake: %v", res)

	sandboxClient := s.Client.Transport.(*http.Transport).Clone()
	cert, err := tls.LoadX509KeyPair(s.PSP.File("sandbox-client.pem"), s.PSP.File("sandbox-client-key.pem"))
	require.NoError(t, err)
	sandboxClient.TLSClientConfig.Certificates = []tls.Certificate{cert}
	res, err = post(&http.Client{Transport: sandboxClient, Timeout: 5 * time.Second})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "the PSP's certificate")
	require.Equal(t, 1, credits(t, s))
}

func TestPSPDisputeNotifications(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	p, paid := livePaid(t, s, 2_000)
	notify := func(token string, body map[string]any) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/psp/disputes", Headers: map[string]string{"Authorization": "Bearer " + token}, Body: body})
	}
	body := map[string]any{"id": "MED-0001", "endToEndId": paid.EndToEndID, "reason": "fraud", "status": "open"}
	require.Equal(t, http.StatusUnauthorized, notify("wrong", body).Status)
	for _, wantDup := range []bool{false, true} {
		r := notify(webtest.PSPToken, body)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, wantDup, r.JSON(t)["duplicate"])
	}
	body["status"] = "unknown"
	require.Equal(t, "status", notify(webtest.PSPToken, body).ErrorParam(t))
	delete(body, "status")
	require.Equal(t, "parameter_missing", notify(webtest.PSPToken, body).ErrorCode(t))
	body["status"], body["extra"] = "open", true
	unknown := notify(webtest.PSPToken, body)
	require.Equal(t, "parameter_unknown", unknown.ErrorCode(t))
	require.Equal(t, "extra", unknown.ErrorParam(t))
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes", Key: s.LiveKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 1)
	require.Equal(t, p["id"], list[0].(map[string]any)["payment_id"])
	require.NotContains(t, s.Logs.String(), webtest.PSPToken)
}
