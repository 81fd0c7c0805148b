package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web"
	"payments/web/webtest"
)

// An address sending invalid API keys is refused 429 past the limit, for
// the rest of the window, whatever it sends; another address is not; the
// refusals are counted and logged once.
func TestInvalidAPIKeysAreThrottledPerAddress(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithTrustedProxies("127.0.0.1"))
	if into := time.Since(time.Now().Truncate(web.InvalidKeyWindow)); into > web.InvalidKeyWindow-5*time.Second {
		time.Sleep(web.InvalidKeyWindow - into) // all of it in one counting window
	}
	from := func(addr, key string) *webtest.Response {
		return s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: key, Headers: map[string]string{"X-Forwarded-For": addr}})
	}
	for i := range web.InvalidKeyLimit {
		r := from("203.0.113.9", "sk_test_"+strings.Repeat("x", 32))
		require.Equal(t, http.StatusUnauthorized, r.Status, "attempt %d", i)
	}
	for range 3 {
		r := from("203.0.113.9", "sk_live_nope")
		require.Equal(t, http.StatusTooManyRequests, r.Status)
		require.Equal(t, "too_many_invalid_keys", r.ErrorCode(t))
		require.NotEmpty(t, r.Header.Get("Retry-After"))
	}
	require.Equal(t, http.StatusTooManyRequests, from("203.0.113.9", s.TestKey).Status, "the address waits out the window, whatever it sends")
	require.Equal(t, http.StatusOK, from("203.0.113.10", s.TestKey).Status, "another address is not held back")
	require.Equal(t, http.StatusUnauthorized, from("203.0.113.10", "sk_test_bad").Status)

	require.Equal(t, 1, strings.Count(s.Logs.String(), "invalid API keys throttled"), "one warning per window")
	require.Equal(t, float64(4), s.MetricValue(`payments_limit_refusals_total{limit="invalid_api_key"}`))
}
