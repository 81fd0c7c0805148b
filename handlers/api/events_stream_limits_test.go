package api_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// rawStream opens an event stream with key and returns its answer and a
// function that hangs up.
func rawStream(t *testing.T, s *webtest.Server, key string) (*http.Response, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1/events/stream", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	// A transport of its own: each stream its own connection, closed on hang-up.
	res, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	require.NoError(t, err)
	hangUp := func() { cancel(); _ = res.Body.Close() }
	t.Cleanup(hangUp)
	return res, hangUp
}

// Streams beyond a key's or an account's limit are refused with 429 and
// Retry-After; the open streams of an account share one reader of its
// events (a handful of them cost what one does); a stream the client
// hangs up stops at once, giving its place back, and with the last one
// the reads stop.
func TestEventStreamsAreLimitedAndShareOneFeed(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, func(o *webtest.Options) { o.Config.StreamsPerKey, o.Config.StreamsPerAccount = 3, 5 })
	_, secondKey, err := s.Store.CreateAPIKey(t.Context(), s.Account.ID, false, store.NewAPIKey{})
	require.NoError(t, err)
	_, otherAccountKey, _ := s.NewAccount("Outra Loja", "outra@example.com")

	var hangUps []func()
	open := func(key string) {
		res, hangUp := rawStream(t, s, key)
		require.Equal(t, http.StatusOK, res.StatusCode)
		hangUps = append(hangUps, hangUp)
	}
	refused := func(key, of string) {
		res, _ := rawStream(t, s, key)
		body, _ := io.ReadAll(res.Body)
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "%s", body)
		require.Equal(t, "1", res.Header.Get("Retry-After"))
		require.Contains(t, string(body), `"code":"too_many_streams"`)
		require.Contains(t, string(body), "This "+of+" has")
	}
	for range 3 {
		open(s.TestKey)
	}
	refused(s.TestKey, "key")
	open(secondKey)
	open(secondKey)
	refused(secondKey, "account")
	other, hangUpOther := rawStream(t, s, otherAccountKey)
	require.Equal(t, http.StatusOK, other.StatusCode, "another account's streams are its own")
	require.Equal(t, float64(6), s.MetricValue("payments_event_streams_open"))
	require.Equal(t, float64(2), s.MetricValue(`payments_limit_refusals_total{limit="event_streams_per_key"}`)+
		s.MetricValue(`payments_limit_refusals_total{limit="event_streams_per_account"}`))

	// Six idle streams of two accounts for a second: two feeds polling four
	// times a second, not six.
	// Shared, that is 8 reads a second; one reader per stream would be 24.
	// The bound sits between (a loaded machine's late ticks catch up in
	// bursts: 14 were seen in a second of a full suite).
	before, from := s.MetricValue("payments_event_stream_store_reads_total"), time.Now()
	time.Sleep(time.Second)
	reads := s.MetricValue("payments_event_stream_store_reads_total") - before
	perSecond := reads / time.Since(from).Seconds()
	require.Less(t, perSecond, float64(6*4)*0.75, "store reads a second of six idle streams (%v in all)", reads)

	// Every stream of the account still sees a new event.
	s.CreatePayment(map[string]any{"amount_cents": 700})

	for _, hangUp := range hangUps {
		hangUp()
	}
	hangUpOther()
	require.Eventually(t, func() bool { return s.MetricValue("payments_event_streams_open") == 0 },
		2*time.Second, 20*time.Millisecond, "hung-up streams close at once, not at their next keep-alive")
	after := s.MetricValue("payments_event_stream_store_reads_total")
	time.Sleep(time.Second)
	require.Equal(t, after, s.MetricValue("payments_event_stream_store_reads_total"), "no reads once every stream closed")

	// Their places are free again.
	res, _ := rawStream(t, s, s.TestKey)
	require.Equal(t, http.StatusOK, res.StatusCode)
}

// Every open stream of an account receives each of its events, from the
// one feed they share.
func TestEventStreamsOfOneAccountAllReceiveEachEvent(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var chans []<-chan sseEvent
	for range 4 {
		ch, res, _ := openStream(t, s, "", "")
		require.Equal(t, http.StatusOK, res.StatusCode)
		chans = append(chans, ch)
	}
	p := s.CreatePayment(map[string]any{"amount_cents": 900})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/pay", Key: s.TestKey})
	var first []string
	for i, ch := range chans {
		got := []string{nextEvent(t, ch).typ, nextEvent(t, ch).typ}
		require.Equal(t, []string{"payment.created", "payment.paid"}, got, "stream %d", i)
		if i == 0 {
			first = got
		}
	}
	require.NotEmpty(t, first)
}
