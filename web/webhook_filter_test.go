package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/maintenance"
	"payments/web/webtest"
)

// A webhook's payload filter narrows what its event types select: checked
// when saved (400 naming filter, saying why), applied as each event is
// written, changed or removed at once, and applied by a replay.
func TestWebhookFiltersNarrowTheEvents(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	api := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: method, Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	filtered, all := webtest.NewReceiver(t, nil), webtest.NewReceiver(t, nil)
	for src, says := range map[string]string{
		`data.object.amount_cents >=`:  "Syntax error",
		`data.object.amount_cents + 1`: "must be true or false",
		`payment.amount_cents > 1`:     "undeclared reference",
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
			"url": filtered.URL, "events": []string{"payment.created"}, "filter": src}})
		require.Equal(t, http.StatusBadRequest, r.Status, src)
		require.Equal(t, "filter", r.ErrorParam(t), src)
		require.Contains(t, r.JSON(t)["error"].(map[string]any)["message"], says, src)
	}
	const rule = `data.object.amount_cents >= 10000 && data.object.metadata.channel == "loja"`
	hook := api("POST", "/api/v1/webhooks", map[string]any{"url": filtered.URL, "events": []string{"payment.created", "payment.paid"},
		"filter": "  " + rule + "  "}, http.StatusCreated)
	require.Equal(t, rule, hook["filter"], "kept trimmed")
	hookID := hook["id"].(string)
	api("POST", "/api/v1/webhooks", map[string]any{"url": all.URL, "events": []string{"payment.created"}}, http.StatusCreated)

	pay := func(cents int, channel string) string {
		id := s.CreatePayment(map[string]any{"amount_cents": cents, "metadata": map[string]any{"channel": channel}})["id"].(string)
		api("POST", "/api/v1/test_helpers/payments/"+id+"/pay", nil, http.StatusOK)
		return id
	}
	deliver := func() {
		for s.Dispatcher.RunOnce(t.Context(), 100) > 0 {
		}
	}
	received := func(r *webtest.Receiver, from int) []string {
		t.Helper()
		return deliveredEvents(t, r.Requests()[from:])
	}
	big := pay(12_000, "loja")
	site := pay(12_000, "site")
	small := pay(500, "loja")
	deliver()
	all.WaitFor(3, 10*time.Second)
	require.ElementsMatch(t, []string{"payment.created " + big, "payment.paid " + big}, received(filtered, 0), "only what the filter passes")
	require.Len(t, received(all, 0), 3, "a webhook without a filter gets every event of its types")

	// Changed: it applies to the next event at once.
	api("POST", "/api/v1/webhooks/"+hookID, map[string]any{"filter": `type == "payment.paid"`}, http.StatusOK)
	later := pay(700, "site")
	deliver()
	require.Equal(t, []string{"payment.paid " + later}, received(filtered, 2))
	// Removed (null): every event of its types again.
	require.Nil(t, api("POST", "/api/v1/webhooks/"+hookID, map[string]any{"filter": nil}, http.StatusOK)["filter"])
	last := pay(800, "site")
	deliver()
	require.ElementsMatch(t, []string{"payment.created " + last, "payment.paid " + last}, received(filtered, 3))

	// A replay of the window applies the filter the webhook has then.
	api("POST", "/api/v1/webhooks/"+hookID, map[string]any{"filter": `data.object.amount_cents == 500`}, http.StatusOK)
	api("POST", "/api/v1/webhooks/"+hookID+"/replay", map[string]any{"from": 0, "to": "2100-01-01T00:00:00Z"}, http.StatusAccepted)
	require.Equal(t, 10, maintenance.AdvanceReplays(t.Context(), s.Store, discardLogger()), "every event of the window gone through")
	deliver()
	require.ElementsMatch(t, []string{"payment.created " + small, "payment.paid " + small}, received(filtered, 5))
	_ = site
}

// The dashboard's webhook form takes the filter: refused beside its field
// in Portuguese, shown on the webhook's page once saved.
func TestDashboardWebhookFilter(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	form := url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"}, "filter": {`data.object.amount_cents +`}}
	r := b.do("POST", "/dashboard/webhooks", form, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.True(t, strings.HasPrefix(r.doc.Find(`[data-testid="error-filter"]`).Text(), "Filtro inválido: "), r.doc.Find(`[data-testid="error-filter"]`).Text())
	require.Equal(t, `data.object.amount_cents +`, r.doc.Find(`textarea#filter`).Text(), "what was typed is kept")

	form.Set("filter", `data.object.amount_cents >= 10000`)
	r = b.do("POST", "/dashboard/webhooks", form, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	detail := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, `data.object.amount_cents >= 10000`, strings.TrimSpace(detail.doc.Find(`[data-testid="webhook-filter"]`).Text()))
}
