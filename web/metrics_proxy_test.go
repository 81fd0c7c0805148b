package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Behind a real nginx (the README's recipe), /metrics is refused to every
// request the proxy forwards unless METRICS_TOKEN is set and shown: the
// proxy connects from 127.0.0.1, which a direct scraper on the same host
// does too, so the address alone cannot tell them apart.
func TestMetricsArePrivateBehindAReverseProxy(t *testing.T) {
	t.Parallel()
	get := func(url, token string) (int, string) {
		req, err := http.NewRequest("GET", url+"/metrics", nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}

	for _, trusted := range []bool{true, false} {
		var opts []webtest.Option
		if trusted {
			opts = append(opts, webtest.WithTrustedProxies("127.0.0.1"))
		}
		s := webtest.New(t, opts...)
		proxy := webtest.StartNginx(t, s.URL)
		status, body := get(proxy, "")
		require.Equal(t, http.StatusForbidden, status, "through nginx, trusted proxies %v: %s", trusted, body)
		require.Contains(t, body, `"code":"metrics_forbidden"`)
		if !trusted {
			// A direct scraper on the host (no proxy headers) is let in.
			status, body = get(s.URL, "")
			require.Equal(t, http.StatusOK, status)
			require.True(t, strings.Contains(body, "payments_http_requests_total"))
		} else {
			// With trusted proxies set, a direct request from the proxy's
			// address is the proxy's as far as anyone can tell: refused.
			status, _ = get(s.URL, "")
			require.Equal(t, http.StatusForbidden, status)
		}
	}

	s := webtest.New(t, webtest.WithTrustedProxies("127.0.0.1"), func(o *webtest.Options) { o.Config.MetricsToken = "scrape-token-0123456789" })
	proxy := webtest.StartNginx(t, s.URL)
	status, _ := get(proxy, "")
	require.Equal(t, http.StatusUnauthorized, status)
	status, _ = get(proxy, "wrong")
	require.Equal(t, http.StatusUnauthorized, status)
	status, body := get(proxy, "scrape-token-0123456789")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, "payments_http_requests_total")
}
