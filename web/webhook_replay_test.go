package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/dialect/pgdialect"

	"payments/dispatcher/maintenance"
	"payments/pix/calendar"
	"payments/store"
	"payments/store/ids"
	"payments/web/webtest"
)

// A replay delivers again every event of a window, not only the failed
// ones: of the types asked, in the window, to that webhook alone, in the
// background with its progress; one at a time per webhook, capped, and
// audited.
func TestReplayAWindowOfEvents(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	recv, other := webtest.NewReceiver(t, nil), webtest.NewReceiver(t, nil)
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})
	s.CreateWebhook(other.URL, map[string]any{"events": []string{"payment.created"}})
	api := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: method, Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	before := s.CreatePayment(map[string]any{"amount_cents": 100})["id"].(string)
	time.Sleep(1100 * time.Millisecond) // the window starts on the next second
	from := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(from))
	var inWindow []string
	for range 3 {
		id := s.CreatePayment(map[string]any{"amount_cents": 200})["id"].(string)
		api("POST", "/api/v1/test_helpers/payments/"+id+"/pay", nil, http.StatusOK)
		inWindow = append(inWindow, id)
	}
	to := time.Now().UTC()
	for s.Dispatcher.RunOnce(t.Context(), 100) > 0 {
	}
	recv.WaitFor(7, 10*time.Second) // 4 created, 3 paid: delivered once, all fine
	delivered := len(recv.Requests())

	// The window's payment.created only: three events.
	replay := api("POST", "/api/v1/webhooks/"+hook+"/replay", map[string]any{"from": from.Unix(), "to": to.Format(time.RFC3339Nano),
		"types": []string{"payment.created"}}, http.StatusAccepted)
	require.Equal(t, "webhook_replay", replay["object"])
	require.Equal(t, "running", replay["status"])
	require.Equal(t, []any{3.0, 0.0}, []any{replay["events_total"], replay["events_queued"]})
	require.Equal(t, []any{"payment.created"}, replay["types"])
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/replay", Key: s.TestKey,
		Body: map[string]any{"from": from.Unix(), "to": to.Unix()}})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "replay_running", r.ErrorCode(t), "one at a time per webhook")

	require.Equal(t, 3, maintenance.AdvanceReplays(t.Context(), s.Store, discardLogger()))
	got := api("GET", "/api/v1/webhooks/"+hook+"/replays/"+replay["id"].(string), nil, http.StatusOK)
	require.Equal(t, []any{"completed", 3.0, 3.0}, []any{got["status"], got["events_total"], got["events_queued"]})
	require.NotNil(t, got["completed_at"])
	list := api("GET", "/api/v1/webhooks/"+hook+"/replays", nil, http.StatusOK)["data"].([]any)
	require.Len(t, list, 1)

	for s.Dispatcher.RunOnce(t.Context(), 100) > 0 {
	}
	replayed := deliveredEvents(t, recv.WaitFor(delivered+3, 10*time.Second)[delivered:])
	var want []string
	for _, id := range inWindow {
		want = append(want, "payment.created "+id)
	}
	require.ElementsMatch(t, want, replayed, "the window's events, already delivered once, delivered again")
	require.NotContains(t, replayed, "payment.created "+before)
	require.Len(t, other.Requests(), 4, "the other webhook gets nothing again")

	// The next replay may start; a window of more events than the cap is
	// refused, and so is a type the webhook does not take.
	api("POST", "/api/v1/webhooks/"+hook+"/replay", map[string]any{"from": from.Unix(), "to": to.Unix()}, http.StatusAccepted)
	require.Equal(t, 6, maintenance.AdvanceReplays(t.Context(), s.Store, discardLogger()), "created and paid")
	bulk := make([]string, store.MaxReplayEvents+1)
	for i := range bulk {
		bulk[i] = ids.New(ids.PrefixEvent)
	}
	_, err := s.DB.ExecContext(t.Context(), `INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at)
		SELECT id, ?, false, 'payment.paid', 'bulk', '{}', ? FROM unnest(?::text[]) id`,
		s.Account.ID, from.Add(-time.Hour), pgdialect.Array(bulk))
	require.NoError(t, err)
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/replay", Key: s.TestKey,
		Body: map[string]any{"from": from.Add(-2 * time.Hour).Unix(), "to": to.Unix()}})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, []string{"replay_too_large", "to"}, []string{r.ErrorCode(t), r.ErrorParam(t)})
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/replay", Key: s.TestKey,
		Body: map[string]any{"from": from.Unix(), "to": to.Unix(), "types": []string{"refund.failed"}}})
	require.Equal(t, []string{"parameter_invalid", "types"}, []string{r.ErrorCode(t), r.ErrorParam(t)})
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/replay", Key: s.TestKey,
		Body: map[string]any{"from": to.Unix(), "to": from.Unix() - 10}})
	require.Equal(t, []string{"parameter_invalid", "to"}, []string{r.ErrorCode(t), r.ErrorParam(t)})

	var audited []string
	require.NoError(t, s.DB.NewRaw("SELECT changes->'events_total'->>1 FROM audit_log WHERE object_id = ? AND action = 'webhook.replay_started' ORDER BY id",
		hook).Scan(t.Context(), &audited))
	require.Equal(t, []string{"3", "6"}, audited)

	// A window reaching past now ends now: what comes later is delivered as
	// it happens, not twice.
	future := api("POST", "/api/v1/webhooks/"+hook+"/replay", map[string]any{"from": from.Unix(), "to": "2100-01-01T00:00:00Z"},
		http.StatusAccepted)
	end, err := time.Parse(time.RFC3339, future["to"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), end, time.Minute)
}

// The console replays a window too: its form (the webhook's types ticked),
// then the replay listed with its progress, running and then completed;
// a second one while it runs is refused in words.
func TestDashboardReplaysAWindow(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	recv := webtest.NewReceiver(t, nil)
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})
	for range 2 {
		s.CreatePayment(map[string]any{"amount_cents": 300})
	}
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/webhooks/"+hook, nil, nil)
	require.Equal(t, 2, page.doc.Find(`[data-testid="replay-form"] input[name="types"][checked]`).Length(), "the webhook's types, ticked")
	local := func(at time.Time) string { return at.In(calendar.Brasilia).Format("2006-01-02T15:04") } // the account's zone
	form := url.Values{"_csrf": {b.csrf("/dashboard/webhooks/" + hook)}, "from": {local(time.Now().Add(-time.Hour))},
		"to": {local(time.Now())}, "types": {"payment.created"}}
	r := b.do("POST", "/dashboard/webhooks/"+hook+"/replay", form, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	page = b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, "Reprocessamento iniciado: 2 eventos serão entregues de novo.", strings.TrimSpace(page.doc.Find(`[data-testid="notice"]`).Text()))
	row := page.doc.Find(`[data-testid="replay-row"]`)
	require.Equal(t, "running", row.AttrOr("data-status", ""))
	require.Contains(t, row.Text(), "em andamento: 0 de 2 eventos enfileirados")

	r = b.do("POST", "/dashboard/webhooks/"+hook+"/replay", form, nil)
	page = b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, "Já há um reprocessamento deste webhook em andamento: aguarde que termine.",
		strings.TrimSpace(page.doc.Find(`[data-testid="notice"]`).Text()))

	require.Equal(t, 2, maintenance.AdvanceReplays(t.Context(), s.Store, discardLogger()))
	page = b.do("GET", "/dashboard/webhooks/"+hook, nil, nil)
	row = page.doc.Find(`[data-testid="replay-row"]`)
	require.Equal(t, "completed", row.AttrOr("data-status", ""))
	require.Contains(t, row.Text(), "concluído: 2 eventos enfileirados")
}

// deliveredEvents are the type and object id of each delivery received,
// as "type id".
func deliveredEvents(t *testing.T, reqs []webtest.Received) []string {
	t.Helper()
	var out []string
	for _, req := range reqs {
		var e struct {
			Type string `json:"type"`
			Data struct {
				Object struct {
					ID string `json:"id"`
				} `json:"object"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(req.Body, &e))
		out = append(out, e.Type+" "+e.Data.Object.ID)
	}
	return out
}
