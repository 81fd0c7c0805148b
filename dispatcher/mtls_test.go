package dispatcher_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/store"
	"payments/web/webtest"
)

// mtlsReceiver is an https receiver whose server certificate serverCA
// signed and which requires a client certificate clientCA signed; it
// records the subject of each client that got through.
func mtlsReceiver(t *testing.T, serverCA, clientCA *webtest.CA) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var clients []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		clients = append(clients, r.TLS.PeerCertificates[0].Subject.CommonName)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serverCA.Server(t).Pair}, ClientAuth: tls.RequireAndVerifyClientCert,
		ClientCAs: clientCA.Pool(), MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), clients...) }
}

// A receiver that requires a client certificate from a CA of its own gets
// every delivery of a webhook carrying one, and refuses the handshake of
// one without; a pinned server_ca that does not match fails the attempt
// with the reason in words. The key never comes back, nor sits in clear.
func TestMutualTLSToTheReceiver(t *testing.T) {
	t.Parallel()
	serverCA, clientCA, otherCA := webtest.NewCA(t, "Receptor CA"), webtest.NewCA(t, "Loja Clientes CA"), webtest.NewCA(t, "Outra CA")
	srv, clients := mtlsReceiver(t, serverCA, clientCA)
	s := webtest.New(t)
	client := clientCA.Client(t, "erp.loja.example", time.Now().Add(90*24*time.Hour))

	create := func(mtls map[string]any) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
			"url": srv.URL, "events": []string{"payment.created"}, "mtls": mtls}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		require.NotContains(t, string(r.Body), "PRIVATE KEY")
		return r.JSON(t)
	}
	with := create(map[string]any{"certificate": client.CertPEM, "private_key": client.KeyPEM, "server_ca": serverCA.PEM})
	cert := with["mtls"].(map[string]any)["client_certificate"].(map[string]any)
	require.Equal(t, "CN=erp.loja.example,O=Loja Teste", cert["subject"])
	require.Equal(t, "CN=Loja Clientes CA,O=Teste", cert["issuer"])
	require.Regexp(t, `^([0-9A-F]{2}:){31}[0-9A-F]{2}$`, cert["fingerprint_sha256"])
	require.Equal(t, false, cert["expiring_soon"])
	require.Equal(t, "CN=Receptor CA,O=Teste", with["mtls"].(map[string]any)["server_ca"].(map[string]any)["subjects"])
	without := create(map[string]any{"server_ca": serverCA.PEM})
	mispinned := create(map[string]any{"certificate": client.CertPEM, "private_key": client.KeyPEM, "server_ca": otherCA.PEM})

	for range 3 {
		s.CreatePayment(map[string]any{"amount_cents": 100})
	}
	for s.Dispatcher.RunOnce(context.Background(), 20) > 0 {
	}
	require.Equal(t, []string{"erp.loja.example", "erp.loja.example", "erp.loja.example"}, clients(), "every delivery of the webhook with the certificate, none other")

	lastError := func(webhookID string) string {
		var ds []store.Delivery
		require.NoError(t, s.DB.NewSelect().Model(&ds).Where("webhook_id = ?", webhookID).Scan(context.Background()))
		require.Len(t, ds, 3)
		for _, d := range ds {
			require.Equal(t, store.DeliveryPending, d.Status, "retried later")
		}
		return *ds[0].LastError
	}
	// TLS 1.3 has the receiver check the client's certificate after the
	// client's side of the handshake is done: the refusal arrives either as
	// its alert or, when the request's write comes first, as the
	// connection it closed (a fresh clone saw "write: broken pipe" once).
	require.Regexp(t, `tls: the receiver refused the TLS handshake \(this webhook presented no client certificate\)|write: broken pipe|connection reset by peer`,
		lastError(without["id"].(string)))
	require.Contains(t, lastError(mispinned["id"].(string)),
		"tls: the receiver's certificate does not chain to the webhook's pinned server_ca (CN=Outra CA,O=Teste)")
	for _, d := range []map[string]any{with, without, mispinned} {
		got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + d["id"].(string), Key: s.TestKey})
		require.NotContains(t, string(got.Body), "PRIVATE KEY")
		require.NotContains(t, string(got.Body), "private_key")
	}
	var sealed []byte
	require.NoError(t, s.DB.NewRaw("SELECT mtls_key_sealed FROM webhooks WHERE id = ?", with["id"]).Scan(context.Background(), &sealed))
	require.NotContains(t, string(sealed), "PRIVATE KEY", "the key is encrypted at rest")
	require.NotContains(t, string(sealed), strings.Split(client.KeyPEM, "\n")[1])

	// Removing it (null) stops presenting it: the receiver refuses again.
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + with["id"].(string), Key: s.TestKey,
		Body: map[string]any{"mtls": nil}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Nil(t, r.JSON(t)["mtls"])
}

// What is wrong with a certificate or key is said in words, beside its
// parameter, and nothing is stored.
func TestMutualTLSInputIsChecked(t *testing.T) {
	t.Parallel()
	ca := webtest.NewCA(t, "Loja Clientes CA")
	good, other := ca.Client(t, "a", time.Now().Add(time.Hour)), ca.Client(t, "b", time.Now().Add(time.Hour))
	expired := ca.Client(t, "velho", time.Now().Add(-time.Minute))
	s := webtest.New(t)
	cases := []struct {
		mtls        any
		param, word string
	}{
		{map[string]any{"certificate": good.CertPEM, "private_key": other.KeyPEM}, "mtls.private_key", "does not match the certificate"},
		{map[string]any{"certificate": expired.CertPEM, "private_key": expired.KeyPEM}, "mtls.certificate", "expired on"},
		{map[string]any{"certificate": "hello", "private_key": good.KeyPEM}, "mtls.certificate", "not PEM text"},
		{map[string]any{"certificate": good.CertPEM}, "mtls.private_key", "without its private key"},
		{map[string]any{"private_key": good.KeyPEM}, "mtls.certificate", "without its certificate"},
		{map[string]any{"certificate": good.KeyPEM, "private_key": good.KeyPEM}, "mtls.certificate", `"PRIVATE KEY" where CERTIFICATE`},
		{map[string]any{"server_ca": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}, "mtls.server_ca", "not a readable X.509"},
		{map[string]any{}, "mtls.certificate", "give a client certificate"},
		{map[string]any{"cert": good.CertPEM}, "mtls.cert", "unknown parameter"},
		{"yes", "mtls", "expected an object"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
			"url": "https://example.com/hook", "events": []string{"payment.paid"}, "mtls": c.mtls}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.mtls, r.Body)
		e := r.JSON(t)["error"].(map[string]any)
		require.Equal(t, c.param, e["param"], "%s", r.Body)
		require.Contains(t, e["message"], c.word)
	}
	n, err := s.Store.CountWebhooks(context.Background(), s.Account.ID)
	require.NoError(t, err)
	require.Zero(t, n)
}

// The platform's own client certificate (WEBHOOK_CLIENT_CERT_FILE) is
// presented to a receiver that pins the platform, by every webhook that
// has no certificate of its own; a webhook's own one wins.
func TestPlatformClientCertificate(t *testing.T) {
	t.Parallel()
	serverCA, clientCA := webtest.NewCA(t, "Receptor CA"), webtest.NewCA(t, "Banco CA")
	srv, clients := mtlsReceiver(t, serverCA, clientCA)
	platform := clientCA.Client(t, "webhooks.plataforma.example", time.Now().Add(24*time.Hour))
	own := clientCA.Client(t, "erp.loja.example", time.Now().Add(24*time.Hour))
	s := webtest.New(t, webtest.WithDispatcher(dispatcher.Config{ClientCertificate: &platform.Pair}))
	s.CreateWebhook(srv.URL, map[string]any{"events": []string{"payment.created"}, "mtls": map[string]any{"server_ca": serverCA.PEM}})
	s.CreateWebhook(srv.URL, map[string]any{"events": []string{"payment.created"}, "mtls": map[string]any{
		"server_ca": serverCA.PEM, "certificate": own.CertPEM, "private_key": own.KeyPEM}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 10))
	got := clients()
	slices.Sort(got)
	require.Equal(t, []string{"erp.loja.example", "webhooks.plataforma.example"}, got)
}

// A change of a webhook's TLS settings reaches its next delivery even when
// it shares the webhook's updated_at with the change before it (two calls
// in one millisecond, from a script): the dispatcher knew its parsed
// settings by updated_at, and kept the first ones.
func TestTLSSettingsChangedInOneMillisecondReachTheNextDelivery(t *testing.T) {
	t.Parallel()
	serverCA, clientCA, otherCA := webtest.NewCA(t, "Receptor CA"), webtest.NewCA(t, "Loja Clientes CA"), webtest.NewCA(t, "Outra CA")
	srv, clients := mtlsReceiver(t, serverCA, clientCA)
	at := time.Now().UTC().Truncate(time.Millisecond)
	s := webtest.New(t, webtest.WithClock(func() time.Time { return at }))
	client := clientCA.Client(t, "erp.loja.example", at.Add(90*24*time.Hour))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
		"url": srv.URL, "events": []string{"payment.created"},
		"mtls": map[string]any{"certificate": client.CertPEM, "private_key": client.KeyPEM, "server_ca": otherCA.PEM}}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	deliver := func() {
		t.Helper()
		s.CreatePayment(map[string]any{"amount_cents": 100})
		for s.Dispatcher.RunOnce(context.Background(), 20) > 0 {
		}
	}
	deliver()
	require.Empty(t, clients(), "the pinned server_ca is another's")
	var lastError string
	require.NoError(t, s.DB.NewRaw("SELECT last_error FROM webhook_deliveries WHERE webhook_id = ?", id).Scan(context.Background(), &lastError))
	require.Contains(t, lastError, "does not chain to the webhook's pinned server_ca (CN=Outra CA,O=Teste)")

	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id, Key: s.TestKey, Body: map[string]any{
		"mtls": map[string]any{"certificate": client.CertPEM, "private_key": client.KeyPEM, "server_ca": serverCA.PEM}}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var updated time.Time
	require.NoError(t, s.DB.NewRaw("SELECT updated_at FROM webhooks WHERE id = ?", id).Scan(context.Background(), &updated))
	require.True(t, updated.Equal(at), "the change shares the webhook's updated_at with its creation")
	deliver()
	require.Equal(t, []string{"erp.loja.example"}, clients(), "the new server_ca verified the receiver")
}
