package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/store"
	"payments/web/webtest"
)

// queryCounter counts the statements bun sends.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

// AfterQuery counts the page's queries; the API keys' "last used",
// written in the background every few seconds, is no page's.
func (q *queryCounter) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if !strings.HasPrefix(e.Query, "UPDATE api_keys") {
		q.n.Add(1)
	}
}

// The delivery console names each delivery's event and order, filters,
// searches and pages, and reads a page in the same number of queries
// whatever the number of deliveries on it (no query per row).
func TestDeliveryConsole(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	failing := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	hook, _ := s.CreateWebhook(failing.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	counter := &queryCounter{}
	//lint:ignore SA1019 the server's own *bun.DB must count its queries; WithQueryHook would return a copy
	s.DB.AddQueryHook(counter)
	queries := func(path string) (int64, page) {
		before := counter.n.Load()
		p := b.do("GET", path, nil, nil)
		require.Equal(t, http.StatusOK, p.status, path)
		return counter.n.Load() - before, p
	}

	for i := range 2 {
		s.CreatePayment(map[string]any{"amount_cents": 100 + i, "external_id": fmt.Sprintf("pedido-%d", i)})
	}
	s.Dispatcher.RunOnce(context.Background(), 100)
	few, _ := queries("/dashboard/webhooks/" + hook)
	for i := 2; i < 30; i++ {
		s.CreatePayment(map[string]any{"amount_cents": 100 + i, "external_id": fmt.Sprintf("pedido-%d", i)})
	}
	s.Dispatcher.RunOnce(context.Background(), 100)
	// Their retries ran out (as after days of failures).
	_, err := s.DB.NewRaw("UPDATE webhook_deliveries SET status = 'failed', completed_at = now() WHERE webhook_id = ?", hook).Exec(context.Background())
	require.NoError(t, err)
	many, p := queries("/dashboard/webhooks/" + hook)
	require.Equal(t, few, many, "a page of 25 deliveries costs what a page of 2 does")
	require.Equal(t, 25, p.doc.Find(`[data-testid="delivery"]`).Length())

	// Each row names its event in words and its order.
	first := p.doc.Find(`[data-testid="delivery"]`).First()
	require.Equal(t, "Cobrança criada", first.Find(`[data-testid="delivery-link"]`).Text())
	require.Contains(t, first.Find(`[data-testid="delivery-about"]`).Text(), "pedido-29")
	require.Equal(t, "Falhou", strings.TrimSpace(first.Find(`[data-testid="status"]`).Text()))

	// Paging goes on where the page ended, with has_more honoured.
	next := p.doc.Find(`[data-testid="next-page"]`).AttrOr("href", "")
	require.NotEmpty(t, next)
	older := b.do("GET", next, nil, nil)
	require.Equal(t, 5, older.doc.Find(`[data-testid="delivery"]`).Length())
	require.Zero(t, older.doc.Find(`[data-testid="next-page"]`).Length())
	require.Equal(t, 1, older.doc.Find(`[data-testid="newest-page"]`).Length())

	// Search by order, by payment id, by event id; filter by status and type.
	count := func(query string) int {
		return b.do("GET", "/dashboard/webhooks/"+hook+"?"+query, nil, nil).doc.Find(`[data-testid="delivery"]`).Length()
	}
	require.Equal(t, 1, count("q=pedido-7"))
	paymentID := first.Find(`[data-testid="delivery-about"] .font-mono`).Last().Text()
	require.Equal(t, 1, count("q="+paymentID))
	require.Equal(t, 1, count("q="+first.AttrOr("data-event-id", "")))
	require.Equal(t, 25, count("status=failed"), "a page of them")
	require.Equal(t, 25, count("status=failing"), "given up or retrying: the one filter that finds every failure")
	require.Equal(t, 1, p.doc.Find(`#dstatus option[value="failing"]`).Length())
	require.Zero(t, count("status=succeeded"))
	require.Zero(t, count("event_type=payment.paid"))
	require.Equal(t, 25, count("event_type=payment.created&from=2000-01-01"))
	require.Zero(t, count("to=2000-01-01"))
	require.Contains(t, b.do("GET", "/dashboard/webhooks/"+hook+"?q=nada", nil, nil).doc.Find(`[data-testid="deliveries-empty"]`).Text(),
		"Nenhuma entrega com estes filtros")

	// Health: every attempt failed.
	health := p.doc.Find(`[data-testid="webhook-health-panel"]`)
	require.Regexp(t, `^0% \(0 de \d+ tentativas\)$`, strings.TrimSpace(health.Find(`[data-testid="health-rate"]`).Text()))
	require.Contains(t, health.Find(`[data-testid="health-last-error"]`).Text(), "HTTP 500")
	list := b.do("GET", "/dashboard/webhooks", nil, nil)
	require.Equal(t, "0", list.doc.Find(`[data-testid="webhook-health"]`).AttrOr("data-rate", ""))

	// Resend every failure since a time: they are queued again.
	token := p.doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")
	r := b.do("POST", "/dashboard/webhooks/"+hook+"/resend-failed", url.Values{"_csrf": {token}, "since": {"2000-01-01T00:00"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	var pending int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'").Scan(context.Background(), &pending))
	require.Equal(t, 30, pending)
	notice := b.do("GET", "/dashboard/webhooks/"+hook, nil, nil).doc.Find(`[data-testid="notice"]`).Text()
	require.Contains(t, notice, "30 entregas com falha desde 01/01/2000 00:00 foram reenviadas")
}

// The webhook cap counts both modes; the page says so in each mode.
func TestWebhookCapExplainedPerMode(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	for i := range store.MaxWebhooksPerAccount {
		key := s.TestKey
		if i == 0 {
			key = s.LiveKey
		}
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: key,
			Body: map[string]any{"url": "https://example.com/hook", "events": []string{"payment.paid"}}})
		require.Equal(t, http.StatusCreated, r.Status)
	}
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks")
	b.do("POST", "/dashboard/mode", url.Values{"_csrf": {token}, "mode": {"live"}}, nil)
	p := b.do("GET", "/dashboard/webhooks", nil, nil)
	capText := p.doc.Find(`[data-testid="webhook-cap"]`).Text()
	require.Contains(t, capText, "19 webhook(s) no modo de teste e 1 no modo real; o limite da conta é 20")
	require.Contains(t, capText, "Limite atingido")
	require.Zero(t, p.doc.Find(`[data-testid="create-webhook"]`).Length(), "no create button at the cap")
	require.Equal(t, 1, p.doc.Find(`[data-testid="webhook-row"]`).Length())
}

// Whatever a form takes, the dashboard answers it with a page, never a 500,
// and stores nothing it should not.
func TestDashboardFormsTakeAnyInput(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	paid := s.Fund(s.TestKey, 10_000)
	hook, _ := s.CreateWebhook("https://example.com/hook", nil)
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/payments")
	inputs := []string{"", " ", "0", "-1", "1e9", "99999999999999999999", "1.234.567,891", "10,00,00", "<script>alert(1)</script>",
		strings.Repeat("é", 5000), "😀", "\u202eabc", "\x00", "\xff\xfe", "'; DROP TABLE payments; --", "%", "_", "NaN", "R$ 10,00"}
	forms := []struct {
		path   string
		fields []string
	}{
		{"/dashboard/payments", []string{"amount", "description", "external_id", "expires_in", "customer_name", "customer_email", "customer_document"}},
		{"/dashboard/balance/withdrawals", []string{"amount", "pix_key", "description", "confirmed", "confirm_token"}},
		{"/dashboard/payments/" + paid + "/refund", []string{"amount", "confirmed", "confirm_token"}},
		{"/dashboard/webhooks", []string{"name", "url", "secret", "api_version", "events", "rate_limit"}},
		{"/dashboard/webhooks/" + hook + "/edit", []string{"name", "url", "events", "rate_limit"}},
		{"/dashboard/webhooks/" + hook + "/test", []string{"event_type"}},
		{"/dashboard/webhooks/" + hook + "/resend-failed", []string{"since"}},
		{"/dashboard/webhooks/" + hook + "/recover", []string{"since", "until"}},
		{"/dashboard/settings/preferences", []string{"locale", "time_zone"}},
		{"/dashboard/settings/password", []string{"current", "new"}},
		{"/dashboard/api-keys", []string{"mode"}},
	}
	for _, f := range forms {
		for _, in := range inputs {
			form := url.Values{"_csrf": {token}}
			for _, name := range f.fields {
				form.Set(name, in)
			}
			r := b.do("POST", f.path, form, nil)
			require.Less(t, r.status, 500, "%s with %q: %s", f.path, in, r.body)
		}
	}
	for _, in := range inputs {
		if len(in) > 1000 {
			continue // a URL that long is refused before any handler (431)
		}
		for _, path := range []string{"/dashboard/payments", "/dashboard/webhooks/" + hook, "/dashboard/support"} {
			r := b.do("GET", path+"?"+url.Values{"q": {in}, "status": {in}, "from": {in}, "to": {in}, "event_type": {in}, "starting_after": {in}}.Encode(), nil, nil)
			require.Less(t, r.status, 500, "%s with %q", path, in)
		}
	}
	var payments, withdrawals int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments").Scan(context.Background(), &payments))
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM withdrawals").Scan(context.Background(), &withdrawals))
	require.Equal(t, 1, payments, "no charge made from nonsense")
	require.Zero(t, withdrawals)
}

// The webhook page recovers a window of events and sets a rate limit; its
// health panel shows the queue and the limit.
func TestDashboardRecoverAndRateLimit(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	recv := webtest.NewReceiver(t, nil)
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	for range 3 {
		s.CreatePayment(map[string]any{"amount_cents": 100})
	}
	require.Equal(t, 3, s.Dispatcher.RunOnce(context.Background(), 10))
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/" + hook)

	r := b.do("POST", "/dashboard/webhooks/"+hook+"/recover", url.Values{"_csrf": {token}, "since": {"2000-01-01T00:00"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	p := b.do("GET", "/dashboard/webhooks/"+hook, nil, nil)
	require.Contains(t, p.doc.Find(`[data-testid="notice"]`).Text(), "3 eventos desde")
	require.Equal(t, "3 entrega(s) pendente(s), 3 para agora", strings.TrimSpace(p.doc.Find(`[data-testid="health-backlog"]`).Text()))
	require.Equal(t, 3, s.Dispatcher.RunOnce(context.Background(), 10))
	require.Len(t, recv.Requests(), 6)
	r = b.do("POST", "/dashboard/webhooks/"+hook+"/recover", url.Values{"_csrf": {token}, "since": {"2000-01-01T00:00"}, "until": {"1999-01-01T00:00"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	p = b.do("GET", "/dashboard/webhooks/"+hook, nil, nil)
	require.Contains(t, p.doc.Find(`[data-testid="notice"]`).Text(), "data final")

	edit := url.Values{"_csrf": {token}, "name": {"Pedidos"}, "url": {recv.URL}, "api_version": {"v2"}, "events": {"payment.created"}, "rate_limit": {"abc"}}
	r = b.do("POST", "/dashboard/webhooks/"+hook+"/edit", edit, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="error-rate_limit"]`).Text(), "de 1 a 1000")
	edit.Set("rate_limit", "5")
	r = b.do("POST", "/dashboard/webhooks/"+hook+"/edit", edit, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	w, err := s.Store.Webhook(context.Background(), store.Scope{AccountID: s.Account.ID}, hook)
	require.NoError(t, err)
	require.Equal(t, 5, *w.RateLimit)
	p = b.do("GET", "/dashboard/webhooks/"+hook, nil, nil)
	require.Equal(t, "5 entrega(s) por segundo", strings.TrimSpace(p.doc.Find(`[data-testid="health-rate-limit"]`).Text()))
	edit.Set("rate_limit", "")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/webhooks/"+hook+"/edit", edit, nil).status)
	w, err = s.Store.Webhook(context.Background(), store.Scope{AccountID: s.Account.ID}, hook)
	require.NoError(t, err)
	require.Nil(t, w.RateLimit)
}
