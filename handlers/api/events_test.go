package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

type eventPage struct {
	ids     []string
	raw     []json.RawMessage
	hasMore bool
}

func listEvents(t *testing.T, s *webtest.Server, query string) eventPage {
	t.Helper()
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events?" + query, Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var body struct {
		HasMore bool              `json:"has_more"`
		Data    []json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	page := eventPage{raw: body.Data, hasMore: body.HasMore}
	for _, raw := range body.Data {
		var e struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(raw, &e))
		page.ids = append(page.ids, e.ID)
	}
	return page
}

// A receiver down for a window: delivery_success=false lists exactly the
// events it missed, recover re-delivers exactly those (as new deliveries,
// the failed ones kept), and afterwards nothing is left unacknowledged.
// Each listed event is byte for byte the body the webhook received.
func TestEventsMissedWhileDownAreListedAndRecovered(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var down atomic.Bool
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.paid"}})
	ctx := context.Background()
	pay := func() string {
		p := s.CreatePayment(map[string]any{"amount_cents": 1500})
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/pay", Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status)
		return p["id"].(string)
	}
	pay()
	pay()
	require.Equal(t, 2, s.Dispatcher.RunOnce(ctx, 10))
	delivered := recv.Requests()
	require.Len(t, delivered, 2)

	time.Sleep(1100 * time.Millisecond) // the window starts on a second of its own
	windowStart := time.Now().Unix()
	down.Store(true)
	for range 3 {
		pay()
	}
	require.Equal(t, 3, s.Dispatcher.RunOnce(ctx, 10))
	failed := recv.Requests()[2:]
	require.Len(t, failed, 3)
	var missed []string
	for _, r := range failed {
		missed = append(missed, r.Header.Get("X-Service-Event-Id"))
	}
	down.Store(false)

	page := listEvents(t, s, "delivery_success=false&type=payment.paid")
	require.ElementsMatch(t, missed, page.ids, "exactly the missed events")
	require.Len(t, listEvents(t, s, "delivery_success=true").ids, 2)
	// payment.created has no subscriber: never queued, so never "unacknowledged".
	require.Empty(t, listEvents(t, s, "delivery_success=false&type=payment.created").ids)

	// Byte for byte: the list's item, the single event less its deliveries,
	// and the body the receiver got.
	all := listEvents(t, s, "type=payment.paid&limit=100")
	first := delivered[0]
	i := slices.Index(all.ids, first.Header.Get("X-Service-Event-Id"))
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, string(first.Body), string(all.raw[i]))
	one := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events/" + all.ids[i], Key: s.TestKey})
	require.Equal(t, http.StatusOK, one.Status)
	body := string(one.Body)
	cut := strings.LastIndex(body, `,"deliveries":`)
	require.Equal(t, string(first.Body), body[:cut]+"}")
	deliveries := one.JSON(t)["deliveries"].(map[string]any)["data"].([]any)
	require.Len(t, deliveries, 1)
	require.Equal(t, "succeeded", deliveries[0].(map[string]any)["status"])

	rec := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/recover", Key: s.TestKey,
		Body: map[string]any{"since": windowStart}})
	require.Equal(t, http.StatusOK, rec.Status, "%s", rec.Body)
	require.Equal(t, float64(3), rec.JSON(t)["requeued"])
	require.Equal(t, 3, s.Dispatcher.RunOnce(ctx, 10), "only the new deliveries are due")
	var redelivered []string
	for _, r := range recv.Requests()[5:] {
		redelivered = append(redelivered, r.Header.Get("X-Service-Event-Id"))
	}
	require.ElementsMatch(t, missed, redelivered)
	require.Empty(t, listEvents(t, s, "delivery_success=false").ids)

	// The failed deliveries stay as they were; each missed event now has two.
	one = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events/" + missed[0], Key: s.TestKey})
	var statuses []string
	for _, d := range one.JSON(t)["deliveries"].(map[string]any)["data"].([]any) {
		statuses = append(statuses, d.(map[string]any)["status"].(string))
	}
	require.Equal(t, []string{"pending", "succeeded"}, statuses, "the first still retrying, the recovery succeeded")

	// Resend one event to its subscribers: one more delivery.
	re := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/events/" + missed[1] + "/resend", Key: s.TestKey})
	require.Equal(t, http.StatusOK, re.Status, "%s", re.Body)
	require.Len(t, re.JSON(t)["data"].([]any), 1)

	// A disabled webhook is not recovered into.
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook, Key: s.TestKey, Body: map[string]any{"enabled": false}})
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/recover", Key: s.TestKey, Body: map[string]any{"since": 0}})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "webhook_disabled", r.ErrorCode(t))
}

// Bad parameters are 400s naming the parameter.
func TestEventsRefuseBadParameters(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	for _, c := range []struct{ query, param string }{
		{"type=payment.nope", "type"}, {"delivery_success=maybe", "delivery_success"}, {"created[gte]=x", "created[gte]"},
		{"starting_after=evt_nope", "starting_after"}, {"limit=0", "limit"}, {"color=red", "color"},
	} {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events?" + c.query, Key: s.TestKey})
		require.Equal(t, http.StatusBadRequest, r.Status, c.query)
		require.Equal(t, c.param, r.ErrorParam(t), c.query)
	}
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events/evt_nope", Key: s.TestKey})
	require.Equal(t, http.StatusNotFound, r.Status)
	hook, _ := s.CreateWebhook("http://127.0.0.1:9/x", nil)
	for _, body := range []map[string]any{{}, {"since": "yesterday"}, {"since": 10, "until": 5}, {"since": 1, "x": 1}} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook + "/recover", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", body, r.Body)
	}
	// Events of another mode or account are not there.
	s.CreatePayment(map[string]any{"amount_cents": 100})
	ids := listEvents(t, s, "").ids
	require.Len(t, ids, 1)
	r = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events/" + ids[0], Key: s.LiveKey})
	require.Equal(t, http.StatusNotFound, r.Status)
}

// Paging forward and backward is stable while events are being written.
func TestEventCursorsStableUnderConcurrentInserts(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	for range 30 {
		s.CreatePayment(map[string]any{"amount_cents": 1})
	}
	original := listEvents(t, s, "limit=100").ids // newest first
	require.Len(t, original, 30)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					s.CreatePayment(map[string]any{"amount_cents": 1})
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()

	seen := []string{original[0]}
	cursor := original[0]
	for {
		page := listEvents(t, s, "limit=7&starting_after="+url.QueryEscape(cursor))
		seen = append(seen, page.ids...)
		if !page.hasMore {
			break
		}
		cursor = page.ids[len(page.ids)-1]
	}
	require.Equal(t, original, seen, "forward: every event once, in order")

	seen = []string{original[len(original)-1]}
	cursor = seen[0]
	for len(seen) < len(original) {
		page := listEvents(t, s, "limit=6&ending_before="+url.QueryEscape(cursor))
		require.NotEmpty(t, page.ids)
		for i := len(page.ids) - 1; i >= 0 && len(seen) < len(original); i-- {
			seen = append(seen, page.ids[i])
		}
		cursor = page.ids[0]
	}
	slices.Reverse(seen)
	require.Equal(t, original, seen, "backward: every event once, in order")
}

// sseEvent is one message of the stream.
type sseEvent struct{ id, typ, data string }

// openStream reads the event stream into a channel until the test ends or
// the returned cancel is called.
func openStream(t *testing.T, s *webtest.Server, query, lastID string) (<-chan sseEvent, *http.Response, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1/events/stream?"+query, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.TestKey)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	out := make(chan sseEvent, 100)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.id != "" {
					out <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				e.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				e.typ = line[7:]
			case strings.HasPrefix(line, "data: "):
				e.data = line[6:]
			}
		}
	}()
	t.Cleanup(cancel)
	return out, res, cancel
}

func nextEvent(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case e, ok := <-ch:
		require.True(t, ok, "the stream ended")
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return sseEvent{}
}

// The stream hands out events as they happen, in the shape asked for;
// reconnecting with Last-Event-ID resumes with no gap and no repeat.
func TestEventStreamResumesWithoutGap(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ch, res, stop := openStream(t, s, "type=payment.created&type=payment.paid&api_version=v1", "")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream; charset=utf-8", res.Header.Get("Content-Type"))
	p := s.CreatePayment(map[string]any{"amount_cents": 700, "external_id": "pedido-7"})
	e := nextEvent(t, ch)
	require.Equal(t, "payment.created", e.typ)
	var v1 map[string]any
	require.NoError(t, json.Unmarshal([]byte(e.data), &v1))
	require.Equal(t, "v1", v1["api_version"])
	require.Equal(t, e.id, v1["event_id"])
	require.Equal(t, p["id"], v1["data"].(map[string]any)["id"])
	stop()

	// While nobody listens: three more events (one of a type not asked for).
	var want []string
	for i := range 3 {
		q := s.CreatePayment(map[string]any{"amount_cents": 100 + i})
		want = append(want, "payment.created")
		if i == 1 {
			s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + q["id"].(string), Key: s.TestKey}) // canceled: filtered out
			s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/pay", Key: s.TestKey})
			want = append(want, "payment.paid")
		}
	}
	ch, _, _ = openStream(t, s, "type=payment.created,payment.paid&api_version=v1", e.id)
	var got []string
	ids := map[string]bool{e.id: true}
	for range want {
		ev := nextEvent(t, ch)
		require.False(t, ids[ev.id], "no repeat")
		ids[ev.id] = true
		got = append(got, ev.typ)
	}
	require.Equal(t, want, got)
	select {
	case ev := <-ch:
		t.Fatalf("unexpected event %v", ev)
	case <-time.After(600 * time.Millisecond):
	}

	// A cursor the account does not have is a 400 before the stream starts.
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events/stream", Key: s.TestKey, Headers: map[string]string{"Last-Event-ID": "evt_nope"}})
	require.Equal(t, http.StatusBadRequest, r.Status)
	require.Equal(t, "Last-Event-ID", r.ErrorParam(t))
}
