package dispatcher_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/envelope"
	"payments/dispatcher/signature"
	"payments/store"
	"payments/store/ids"
	"payments/web/webtest"
)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now().UTC().Truncate(time.Second)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func payPayment(t *testing.T, s *webtest.Server) map[string]any {
	t.Helper()
	p := s.CreatePayment(map[string]any{"amount_cents": 12990, "external_id": "order-" + ids.New("x")[2:12]})
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/pay", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	return r.JSON(t)
}

func independentHMAC(secret, t string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

func TestDeliveryHeadersEnvelopesAndSignatures(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	v2 := webtest.NewReceiver(t, nil)
	v1 := webtest.NewReceiver(t, nil)
	v2ID, v2Secret := s.CreateWebhook(v2.URL, map[string]any{"events": []string{"payment.paid"}})
	v1ID, v1Secret := s.CreateWebhook(v1.URL, map[string]any{"events": []string{"payment.paid"}, "api_version": "v1"})
	require.True(t, strings.HasPrefix(v2Secret, "whsec_"))

	paid := payPayment(t, s)
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 100), "payment.created is not subscribed; payment.paid goes to both")

	var event store.Event
	require.NoError(t, s.DB.NewSelect().Model(&event).Where("object_id = ? AND type = 'payment.paid'", paid["id"]).Scan(context.Background()))

	for _, c := range []struct {
		receiver  *webtest.Receiver
		webhookID string
		secret    string
		version   string
	}{{v2, v2ID, v2Secret, "v2"}, {v1, v1ID, v1Secret, "v1"}} {
		got := c.receiver.Requests()
		require.Len(t, got, 1)
		h, body := got[0].Header, got[0].Body

		require.Equal(t, "application/json", h.Get("Content-Type"))
		require.Equal(t, "Service-Webhooks/2.0", h.Get("User-Agent"))
		require.Equal(t, "payment.paid", h.Get("X-Service-Event"))
		require.Equal(t, event.ID, h.Get("X-Service-Event-Id"))
		require.Equal(t, c.webhookID, h.Get("X-Service-Webhook-Id"))
		require.Equal(t, c.version, h.Get("X-Service-Api-Version"))
		require.Regexp(t, `^dlv_[0-9A-Za-z]{22}$`, h.Get("X-Service-Delivery"))
		var attemptID string
		require.NoError(t, s.DB.NewRaw("SELECT id FROM delivery_attempts WHERE webhook_id = ?", c.webhookID).Scan(context.Background(), &attemptID))
		require.Equal(t, attemptID, h.Get("X-Service-Delivery"), "the delivery header names the recorded attempt")

		// The signature, checked by the receiver package and by hand.
		sig := h.Get("X-Service-Signature")
		require.NoError(t, signature.Verify(body, sig, c.secret, signature.DefaultTolerance))
		parts := strings.Split(sig, ",")
		require.Len(t, parts, 2)
		ts := strings.TrimPrefix(parts[0], "t=")
		require.Equal(t, "v1="+independentHMAC(c.secret, ts, body), parts[1])

		// The body is exactly the envelope of the frozen event.
		want, err := envelope.Envelope(c.version, &event)
		require.NoError(t, err)
		require.Equal(t, string(want), string(body))
		var env map[string]any
		require.NoError(t, json.Unmarshal(body, &env))
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if c.version == "v2" {
			require.Equal(t, []string{"api_version", "created", "created_at", "data", "id", "livemode", "source", "type"}, keys)
			require.Equal(t, paid, env["data"].(map[string]any)["object"], "data.object is the payment as the API returned it when paid")
			require.Equal(t, "service", env["source"])
			require.Regexp(t, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`, env["created_at"])
		} else {
			require.Equal(t, []string{"api_version", "created_at", "data", "event", "event_id", "livemode", "source"}, keys)
			require.Equal(t, paid, env["data"])
			require.Equal(t, "v1", env["api_version"])
		}
	}

	// The delivery reads back through the API with its attempt.
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + v2ID + "/deliveries", Key: s.TestKey})
	d := r.JSON(t)["data"].([]any)[0].(map[string]any)
	require.Equal(t, "succeeded", d["status"])
	require.Equal(t, float64(1), d["attempt_count"])
	attempt := d["attempts"].([]any)[0].(map[string]any)
	require.Equal(t, float64(200), attempt["response"].(map[string]any)["status"])
	require.Equal(t, "ok", attempt["response"].(map[string]any)["body"])
	require.Equal(t, v2.Requests()[0].Header.Get("X-Service-Signature"), attempt["request"].(map[string]any)["headers"].(map[string]any)["X-Service-Signature"])
}

func TestFanOutMatchesModeSubscriptionAndEnabled(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	recv := webtest.NewReceiver(t, nil)
	subscribed, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.canceled"}})
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}, "enabled": false})
	live := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.LiveKey,
		Body: map[string]any{"url": recv.URL, "events": []string{"payment.created"}}})
	require.Equal(t, http.StatusCreated, live.Status)
	other, otherKey, _ := s.NewAccount("Outra", "outra@example.com")
	_ = other
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: otherKey,
		Body: map[string]any{"url": recv.URL, "events": []string{"payment.created"}}})

	s.CreatePayment(map[string]any{"amount_cents": 100})
	var hooks []string
	require.NoError(t, s.DB.NewRaw("SELECT webhook_id FROM webhook_deliveries").Scan(context.Background(), &hooks))
	require.Equal(t, []string{subscribed}, hooks)
}

func TestSecretRotationSignsWithBothSecretsFor24h(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now))
	recv := webtest.NewReceiver(t, nil)
	id, oldSecret := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/rotate_secret", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	rotated := r.JSON(t)
	newSecret := rotated["secret"].(string)
	require.NotEqual(t, oldSecret, newSecret)
	require.NotNil(t, rotated["previous_secret_expires_at"])

	s.CreatePayment(map[string]any{"amount_cents": 100})
	s.Dispatcher.RunOnce(context.Background(), 10)
	got := recv.Requests()
	require.Len(t, got, 1)
	sig := got[0].Header.Get("X-Service-Signature")
	require.Len(t, strings.Split(sig, ","), 3, "t plus two v1 entries")
	verifyAt := func(secret string) error {
		return signature.VerifyAt(got[len(got)-1].Body, got[len(got)-1].Header.Get("X-Service-Signature"), secret, signature.DefaultTolerance, clk.Now())
	}
	require.NoError(t, verifyAt(newSecret))
	require.NoError(t, verifyAt(oldSecret))

	clk.Advance(24*time.Hour + time.Second)
	s.CreatePayment(map[string]any{"amount_cents": 100})
	s.Dispatcher.RunOnce(context.Background(), 10)
	got = recv.Requests()
	require.Len(t, got, 2)
	require.Len(t, strings.Split(got[1].Header.Get("X-Service-Signature"), ","), 2, "after 24h only the new secret signs")
	require.NoError(t, verifyAt(newSecret))
	require.ErrorIs(t, verifyAt(oldSecret), signature.ErrSignatureInvalid)
	require.Nil(t, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)["previous_secret_expires_at"])
}

func TestConcurrentCreatesStopAtTheCap(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var wg sync.WaitGroup
	statuses := make([]int, 21)
	for i := range statuses {
		key := s.TestKey
		if i%2 == 1 {
			key = s.LiveKey // the cap counts both modes
		}
		wg.Go(func() {
			r := s.DoRaw(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: key,
				Body: map[string]any{"url": "https://example.com/hook", "events": []string{"payment.paid"}}})
			statuses[i] = r.Status
			if r.Status == http.StatusConflict {
				require.Equal(t, "webhook_limit_reached", r.ErrorCode(t))
			}
		})
	}
	wg.Wait()
	created := 0
	for _, st := range statuses {
		if st == http.StatusCreated {
			created++
		}
	}
	require.Equal(t, 20, created)
	n, err := s.Store.CountWebhooks(context.Background(), s.Account.ID)
	require.NoError(t, err)
	require.Equal(t, 20, n)
}

func TestSendTestReportsTheReceiversAnswer(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"received":true}`))
	})
	id, secret := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/test", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	res := r.JSON(t)
	require.Equal(t, true, res["success"])
	require.Equal(t, float64(202), res["status"])
	require.GreaterOrEqual(t, res["latency_ms"], float64(0))
	attempt := res["attempt"].(map[string]any)
	require.Equal(t, `{"received":true}`, attempt["response"].(map[string]any)["body"])
	require.Equal(t, "payment.paid", attempt["event_type"], "payment.paid is preferred when subscribed")

	got := recv.Requests()
	require.Len(t, got, 1)
	require.NoError(t, signature.Verify(got[0].Body, got[0].Header.Get("X-Service-Signature"), secret, signature.DefaultTolerance))

	down := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id, Key: s.TestKey, Body: map[string]any{"url": "http://127.0.0.1:1/none"}})
	require.Equal(t, http.StatusOK, down.Status)
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/test", Key: s.TestKey, Body: map[string]any{"event_type": "dispute.opened"}})
	require.Equal(t, http.StatusOK, r.Status)
	res = r.JSON(t)
	require.Equal(t, false, res["success"])
	require.Nil(t, res["status"])
	require.Equal(t, "connection_refused", res["attempt"].(map[string]any)["error"].(map[string]any)["class"])
}

func TestWebhookSecretsAreShownOnceAndSealedAtRest(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	custom := "my-own-secret-0123456789"
	id, secret := s.CreateWebhook("https://example.com/hook", map[string]any{"secret": custom})
	require.Equal(t, custom, secret)
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey})
	require.NotContains(t, string(got.Body), custom)
	require.Equal(t, "…6789", got.JSON(t)["secret_hint"])
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks", Key: s.TestKey})
	require.NotContains(t, string(list.Body), custom)

	var sealed []byte
	require.NoError(t, s.DB.NewRaw("SELECT secret_sealed FROM webhooks WHERE id = ?", id).Scan(context.Background(), &sealed))
	require.NotContains(t, string(sealed), custom)
	require.NotContains(t, s.Logs.String(), custom)

	// A sealed secret moved to another row does not open (it is bound to its webhook id).
	other, _ := s.CreateWebhook("https://example.com/other", nil)
	_, err := s.DB.NewRaw("UPDATE webhooks SET secret_sealed = ? WHERE id = ?", sealed, other).Exec(context.Background())
	require.NoError(t, err)
	w, err := s.Store.Webhook(context.Background(), store.Scope{AccountID: s.Account.ID}, other)
	require.NoError(t, err)
	_, err = s.Store.SigningSecrets(w, time.Now())
	require.Error(t, err)
}

func TestWebhookValidation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	cases := []struct {
		name  string
		body  map[string]any
		code  string
		param string
	}{
		{"url missing", map[string]any{"events": []string{"payment.paid"}}, "parameter_missing", "url"},
		{"events missing", map[string]any{"url": "https://example.com"}, "parameter_missing", "events"},
		{"events empty", map[string]any{"url": "https://example.com", "events": []string{}}, "parameter_invalid", "events"},
		{"unknown event", map[string]any{"url": "https://example.com", "events": []string{"payment.paid", "payment.lost"}}, "parameter_invalid", "events[1]"},
		{"event not string", map[string]any{"url": "https://example.com", "events": []any{1}}, "parameter_invalid_type", "events[0]"},
		{"not a url", map[string]any{"url": "example.com/hook", "events": []string{"payment.paid"}}, "parameter_invalid", "url"},
		{"credentials in url", map[string]any{"url": "https://user:pass@example.com/", "events": []string{"payment.paid"}}, "parameter_invalid", "url"},
		{"bad version", map[string]any{"url": "https://example.com", "events": []string{"payment.paid"}, "api_version": "v3"}, "parameter_invalid", "api_version"},
		{"secret too short", map[string]any{"url": "https://example.com", "events": []string{"payment.paid"}, "secret": "short"}, "parameter_invalid", "secret"},
		{"secret too long", map[string]any{"url": "https://example.com", "events": []string{"payment.paid"}, "secret": strings.Repeat("s", 129)}, "parameter_too_long", "secret"},
		{"secret with space", map[string]any{"url": "https://example.com", "events": []string{"payment.paid"}, "secret": "has a space inside it"}, "parameter_invalid", "secret"},
		{"name too long", map[string]any{"url": "https://example.com", "events": []string{"payment.paid"}, "name": strings.Repeat("n", 121)}, "parameter_too_long", "name"},
		{"enabled not bool", map[string]any{"url": "https://example.com", "events": []string{"payment.paid"}, "enabled": "yes"}, "parameter_invalid_type", "enabled"},
		{"unknown field", map[string]any{"url": "https://example.com", "events": []string{"payment.paid"}, "mode": "live"}, "parameter_unknown", "mode"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: c.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", c.name, r.Body)
		require.Equal(t, c.code, r.ErrorCode(t), c.name)
		require.Equal(t, c.param, r.ErrorParam(t), c.name)
	}
	id, _ := s.CreateWebhook("https://example.com/hook", map[string]any{"name": "  "})
	w := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.TestKey}).JSON(t)
	require.Equal(t, "Webhook", w["name"])
	require.Equal(t, "v2", w["api_version"], "v2 is the default")
	require.Equal(t, true, w["enabled"])
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id, Key: s.LiveKey})
	require.Equal(t, http.StatusNotFound, r.Status, "a live key does not see test webhooks")
}

func TestWebhookURLGuardWithoutDevFlag(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithoutPrivateNetworks())
	for _, u := range []string{
		"http://example.com/hook", "https://localhost/hook", "https://127.0.0.1/hook", "https://10.0.0.8/hook",
		"https://[::1]/hook", "https://169.254.169.254/latest", "https://metadata.internal/", "https://printer.local/",
		"https://[::ffff:192.168.0.1]/hook",
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey,
			Body: map[string]any{"url": u, "events": []string{"payment.paid"}}})
		require.Equal(t, http.StatusBadRequest, r.Status, u)
		require.Equal(t, "url", r.ErrorParam(t), u)
	}
	s.CreateWebhook("https://hooks.example.com:8443/pix?x=1", nil)
}

// Attempts have no foreign key to their webhook (migration 010): deleting a
// webhook deletes its deliveries' attempts and its test attempts itself, and
// leaves every other webhook's alone.
func TestDeletingAWebhookDeletesItsAttempts(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	recv := webtest.NewReceiver(t, nil)
	gone, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	kept, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 10))
	for _, id := range []string{gone, kept} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/test", Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status)
	}
	attempts := func(webhookID string) (delivered, tests int) {
		require.NoError(t, s.DB.NewRaw(`SELECT count(*) FILTER (WHERE NOT coalesce(d.test, false)), count(*) FILTER (WHERE d.test)
			FROM delivery_attempts a LEFT JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE a.webhook_id = ?`, webhookID).
			Scan(context.Background(), &delivered, &tests))
		return delivered, tests
	}
	delivered, tests := attempts(gone)
	require.Equal(t, [2]int{1, 1}, [2]int{delivered, tests})

	r := s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/webhooks/" + gone, Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	delivered, tests = attempts(gone)
	require.Equal(t, [2]int{0, 0}, [2]int{delivered, tests}, "the deleted webhook's attempts are gone")
	delivered, tests = attempts(kept)
	require.Equal(t, [2]int{1, 1}, [2]int{delivered, tests}, "the other webhook keeps its attempts")
	var deliveries int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?", gone).Scan(context.Background(), &deliveries))
	require.Zero(t, deliveries)

	r = s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/webhooks/" + gone, Key: s.TestKey})
	require.Equal(t, http.StatusNotFound, r.Status)
}

// A webhook deleted while one of its deliveries is in flight takes that
// attempt with it too: recorded after the deletion, it is deleted when its
// finish finds the delivery gone, and the log says so rather than that a
// lease was lost.
func TestAWebhookDeletedDuringAnAttemptTakesThatAttemptToo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := webtest.New(t, webtest.WithRunningDispatcher())
	inFlight, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		close(inFlight)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(let) // before the receiver closes, however the test ends
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	select {
	case <-inFlight:
	case <-time.After(10 * time.Second):
		t.Fatal("the delivery was never sent")
	}
	r := s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/webhooks/" + hook, Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	let()

	require.Eventually(t, func() bool { return s.Logged("webhook deleted during attempt") }, 10*time.Second, 10*time.Millisecond)
	var attempts int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM delivery_attempts WHERE webhook_id = ?", hook).Scan(ctx, &attempts))
	require.Zero(t, attempts, "the attempt recorded after the deletion is gone too")
	require.False(t, s.Logged("lease lost during attempt"))
}

// Deliveries take the id format of every other id, and an event's
// deliveries (one per subscribed webhook) each their own.
func TestDeliveryIDsHaveTheFormatOfEveryID(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var hooks []string
	for i := range 3 {
		id, _ := s.CreateWebhook(fmt.Sprintf("https://example.com/%d", i), map[string]any{"events": []string{"payment.created"}})
		hooks = append(hooks, id)
	}
	s.CreatePayment(map[string]any{"amount_cents": 100})
	s.CreatePayment(map[string]any{"amount_cents": 200})
	seen := map[string]bool{}
	for _, hook := range hooks {
		list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + hook + "/deliveries", Key: s.TestKey}).JSON(t)
		data := list["data"].([]any)
		require.Len(t, data, 2)
		for _, d := range data {
			id := d.(map[string]any)["id"].(string)
			require.Regexp(t, `^whd_[0-9A-Za-z]{22}$`, id)
			require.False(t, seen[id], "delivery ids are unique")
			seen[id] = true
			got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + hook + "/deliveries/" + id, Key: s.TestKey})
			require.Equal(t, http.StatusOK, got.Status, "%s", got.Body)
		}
	}
	require.Len(t, seen, 6)
}
