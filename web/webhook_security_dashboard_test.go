package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

// The dashboard creates an ed25519 webhook: no secret is revealed, its
// page shows the public key the API gives, and a rotation (confirmed)
// names the new key; the event catalog shows both verifiers.
func TestDashboardEd25519Webhook(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	form := b.do("GET", "/dashboard/webhooks/new", nil, nil)
	require.Equal(t, "hmac-sha256", form.doc.Find(`input[name="signature_algorithm"][checked]`).AttrOr("value", ""), "HMAC is the default")

	r := b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"},
		"signature_algorithm": {"ed25519"}, "secret": {"my-own-secret-of-32-characters!!"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="error-secret"]`).Text(), "HMAC-SHA256")
	require.Equal(t, "ed25519", r.doc.Find(`input[name="signature_algorithm"][checked]`).AttrOr("value", ""), "the choice is kept")

	r = b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"},
		"signature_algorithm": {"ed25519"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	detail := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Zero(t, detail.doc.Find(`[data-testid="new-secret"]`).Length(), "the signing key is never shown")
	hooks := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks", Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, hooks, 1)
	hook := hooks[0].(map[string]any)
	require.Equal(t, "ed25519", hook["signature_algorithm"])
	require.Equal(t, hook["public_key"], detail.doc.Find(`[data-testid="public-key"]`).Text())
	require.Equal(t, "Ed25519 (chave pública)", detail.doc.Find(`[data-testid="signature-algorithm"]`).Text())

	id := hook["id"].(string)
	confirm := b.do("POST", "/dashboard/webhooks/"+id+"/rotate", url.Values{"_csrf": {token}}, nil)
	require.Equal(t, http.StatusOK, confirm.status)
	require.Contains(t, confirm.doc.Text(), hook["public_key"].(string), "the confirmation names the key being replaced")
	done := b.do("POST", "/dashboard/webhooks/"+id+"/rotate", url.Values{"_csrf": {token}, "confirmed": {"1"}}, nil)
	require.Equal(t, http.StatusSeeOther, done.status)
	after := b.do("GET", done.header.Get("Location"), nil, nil)
	rotated := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)
	require.NotEqual(t, hook["public_key"], rotated["public_key"])
	require.Contains(t, after.doc.Find(`[data-testid="notice"]`).Text(), rotated["public_key"].(string))
	require.Equal(t, rotated["public_key"], after.doc.Find(`[data-testid="public-key"]`).Text())
	n, err := s.Store.CountWebhooks(context.Background(), s.Account.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	catalog := b.do("GET", "/dashboard/webhooks/events", nil, nil)
	require.Contains(t, catalog.doc.Find(`[data-testid="verify-hmac"]`).Text(), `crypto.createHmac("sha256", secret)`)
	require.Contains(t, catalog.doc.Find(`[data-testid="verify-ed25519"]`).Text(), `crypto.verify(null, signed, key`)
}

// A receiver's Retry-After shows in the console: the webhook's health
// panel says until when it is paused, the delivery why it waits.
func TestDashboardShowsRetryAfterPause(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "600")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	id, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/webhooks/"+id, nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.doc.Find(`[data-testid="health-paused"]`).Text(), "Retry-After")
	require.Equal(t, "a pedido do receptor (Retry-After)", page.doc.Find(`[data-testid="delivery-retry-after"]`).Text())
}

// A webhook whose receiver answers slowly is in the slow lane, and its
// health panel says so, in words; answering fast brings it back.
func TestDashboardShowsTheSlowLane(t *testing.T) {
	t.Parallel()
	var slow atomic.Bool
	slow.Store(true)
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		if slow.Load() {
			time.Sleep(2100 * time.Millisecond)
		}
	})
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	id, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/webhooks/"+id, nil, nil)
	require.Contains(t, page.doc.Find(`[data-testid="health-slow"]`).Text(), "as respostas levam 2 s ou mais")

	slow.Store(false)
	for range 3 { // the average of its attempts comes down under 500 ms
		s.CreatePayment(map[string]any{"amount_cents": 100})
		require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	}
	page = b.do("GET", "/dashboard/webhooks/"+id, nil, nil)
	require.Zero(t, page.doc.Find(`[data-testid="health-slow"]`).Length(), "back in the fast lane")
}

// postMultipart posts fields and files (name -> content) as the webhook
// form does, and returns the answer.
func (b *browser) postMultipart(path string, fields map[string]string, files map[string]string) page {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		require.NoError(b.t, w.WriteField(k, v))
	}
	for name, content := range files {
		part, err := w.CreateFormFile(name, name+".pem")
		require.NoError(b.t, err)
		_, err = part.Write([]byte(content))
		require.NoError(b.t, err)
	}
	require.NoError(b.t, w.Close())
	req, err := http.NewRequest("POST", b.base+path, &body)
	require.NoError(b.t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "text/html")
	return b.send(req)
}

// The webhook form takes the client certificate, its key and the pinned CA
// as PEM files; a key of another certificate is refused in Portuguese
// beside its field; the page shows subject, fingerprint and expiry (never
// the key), warns on the health panel when it ends within 30 days, and the
// owners get one e-mail and one activity row about it.
func TestDashboardMutualTLS(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithMail())
	tag := strings.ToLower(pix.RandomBase62(8))
	owner := "dona-" + tag + "@example.com"
	ownerFor(t, s, s.Account.ID, owner)
	ca := webtest.NewCA(t, "Loja Clientes CA")
	soon := ca.Client(t, "erp.loja.example", time.Now().Add(10*24*time.Hour))
	other := ca.Client(t, "outro", time.Now().Add(10*24*time.Hour))
	b := newBrowser(t, s)
	b.login(owner, "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	fields := map[string]string{"_csrf": token, "url": "https://example.com/hook", "events": "payment.paid"}

	refused := b.postMultipart("/dashboard/webhooks", fields, map[string]string{"mtls_certificate": soon.CertPEM, "mtls_private_key": other.KeyPEM})
	require.Equal(t, http.StatusUnprocessableEntity, refused.status, refused.body)
	require.Equal(t, "A chave privada não corresponde ao certificado.", refused.doc.Find(`[data-testid="error-mtls_private_key"]`).Text())

	created := b.postMultipart("/dashboard/webhooks", fields, map[string]string{"mtls_certificate": soon.CertPEM, "mtls_private_key": soon.KeyPEM,
		"mtls_server_ca": ca.PEM})
	require.Equal(t, http.StatusSeeOther, created.status, created.body)
	detail := b.do("GET", created.header.Get("Location"), nil, nil)
	require.NotContains(t, detail.body, "PRIVATE KEY")
	hook := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks", Key: s.TestKey}).JSON(t)["data"].([]any)[0].(map[string]any)
	cert := hook["mtls"].(map[string]any)["client_certificate"].(map[string]any)
	require.Equal(t, true, cert["expiring_soon"])
	require.Equal(t, "SHA-256 "+cert["fingerprint_sha256"].(string), detail.doc.Find(`[data-testid="mtls-fingerprint"]`).Text())
	require.Contains(t, detail.doc.Find(`[data-testid="mtls-certificate"]`).Text(), "CN=erp.loja.example")
	require.Contains(t, detail.doc.Find(`[data-testid="mtls-server-ca"]`).Text(), "CN=Loja Clientes CA")
	require.Contains(t, detail.doc.Find(`[data-testid="health-certificate"]`).Text(), "Vence em 10 dias")

	// The expiry notice: once, to the owners, in the activity log.
	for range 2 {
		_, err := s.Store.NoticeExpiringCertificates(context.Background(), 100)
		require.NoError(t, err)
	}
	mail := s.Mail(owner, "Certificado do webhook")
	require.Contains(t, mail.Text, cert["fingerprint_sha256"].(string))
	require.Contains(t, mail.Text, "/dashboard/webhooks/"+hook["id"].(string))
	var rows int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM emails WHERE to_address = ? AND kind = 'certificate_expiring'",
		owner).Scan(context.Background(), &rows))
	require.Equal(t, 1, rows, "one e-mail, however often the job runs")
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM audit_log WHERE action = 'webhook.certificate_expiring' AND object_id = ?",
		hook["id"]).Scan(context.Background(), &rows))
	require.Equal(t, 1, rows)

	// A new certificate replaces it (and may be noticed again when it
	// nears its end); removing drops every setting.
	later := ca.Client(t, "erp.loja.example", time.Now().Add(200*24*time.Hour))
	edit := "/dashboard/webhooks/" + hook["id"].(string) + "/edit"
	saved := b.postMultipart(edit, map[string]string{"_csrf": token, "url": "https://example.com/hook", "events": "payment.paid"},
		map[string]string{"mtls_certificate": later.CertPEM, "mtls_private_key": later.KeyPEM})
	require.Equal(t, http.StatusSeeOther, saved.status, saved.body)
	detail = b.do("GET", "/dashboard/webhooks/"+hook["id"].(string), nil, nil)
	require.Zero(t, detail.doc.Find(`[data-testid="health-certificate"]`).Length())
	require.Zero(t, detail.doc.Find(`[data-testid="mtls-server-ca"]`).Length(), "the files given replace the settings whole")
	removed := b.postMultipart(edit, map[string]string{"_csrf": token, "url": "https://example.com/hook", "events": "payment.paid",
		"mtls_remove": "true"}, nil)
	require.Equal(t, http.StatusSeeOther, removed.status, removed.body)
	require.Nil(t, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + hook["id"].(string), Key: s.TestKey}).JSON(t)["mtls"])
}

// An ordered webhook's console says which delivery waits for the one
// before it, and, once that one is given up, shows the gap on it.
func TestDashboardShowsOrderedWaitsAndGaps(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := webtest.New(t, webtest.WithClock(clock))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Service-Event") == "payment.created" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	id, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}, "ordered": true})
	p := s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/pay",
		Key: s.TestKey}).Status)
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "payment.created only; payment.paid waits")

	look := func() page {
		b := newBrowser(t, s)
		b.login("owner@example.com", "correct-horse-battery")
		return b.do("GET", "/dashboard/webhooks/"+id, nil, nil)
	}
	console := look()
	require.Equal(t, "Sim: por objeto, uma por vez, na ordem dos eventos", strings.TrimSpace(console.doc.Find(`[data-testid="webhook-ordered"]`).Text()))
	require.Equal(t, 1, console.doc.Find(`[data-testid="delivery-waiting"]`).Length())
	require.Zero(t, console.doc.Find(`[data-testid="delivery-gap"]`).Length())

	for _, wait := range []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 5 * time.Minute, 30 * time.Minute,
		2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour} {
		advance(wait * 13 / 10) // past its jitter (up to 20%)
		require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	}
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10), "given up: payment.paid goes")
	console = look()
	require.Zero(t, console.doc.Find(`[data-testid="delivery-waiting"]`).Length())
	require.Equal(t, "desistida: as entregas seguintes deste objeto seguiram sem ela", console.doc.Find(`[data-testid="delivery-gap"]`).Text())
}

// Forwarding the trace is a box on the webhook form: ticked, the webhook
// has forward_trace and its page says so; unticked on edit, it goes.
func TestDashboardForwardTrace(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	form := b.do("GET", "/dashboard/webhooks/new", nil, nil)
	require.Equal(t, 1, form.doc.Find(`input[name="forward_trace"]:not([checked])`).Length(), "off by default")
	r := b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"},
		"forward_trace": {"true"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	detail := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, "Sim: cada tentativa leva traceparent e tracestate", strings.TrimSpace(detail.doc.Find(`[data-testid="webhook-forward-trace"]`).Text()))
	hook := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks", Key: s.TestKey}).JSON(t)["data"].([]any)[0].(map[string]any)
	require.Equal(t, true, hook["forward_trace"])

	id := hook["id"].(string)
	edit := b.do("GET", "/dashboard/webhooks/"+id+"/edit", nil, nil)
	require.Equal(t, 1, edit.doc.Find(`input[name="forward_trace"][checked]`).Length(), "the form shows it on")
	r = b.do("POST", "/dashboard/webhooks/"+id+"/edit", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"},
		"events": {"payment.paid"}, "name": {hook["name"].(string)}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	require.Equal(t, false, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)["forward_trace"])
	var changes string
	require.NoError(t, s.DB.NewRaw("SELECT changes::text FROM audit_log WHERE object_id = ? AND action = 'webhook.updated'", id).Scan(t.Context(), &changes))
	require.Contains(t, changes, `"forward_trace": [true, false]`, "audited")
}
