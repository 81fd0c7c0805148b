package dispatcher_test

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/store"
	"payments/web/webtest"
)

// With WEBHOOK_PROXY_URL set, every delivery leaves through the egress
// proxy (smokescreen, as `make run` runs it): an https receiver that
// closes each connection sees as many requests as smokescreen logged
// CONNECTs to it.
func TestDeliveriesLeaveThroughTheEgressProxy(t *testing.T) {
	t.Parallel()
	proxy := webtest.WebhookProxy(t)
	var got atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		got.Add(1)
		w.Header().Set("Connection", "close") // one CONNECT per delivery
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	s := webtest.New(t, webtest.WithDispatcher(dispatcher.Config{Proxy: proxy}))
	s.CreateWebhook(srv.URL, map[string]any{"events": []string{"payment.created"}, "mtls": map[string]any{"server_ca": ca}})
	const deliveries = 6
	for range deliveries {
		s.CreatePayment(map[string]any{"amount_cents": 100})
	}
	for sent := 0; sent < deliveries; {
		n := s.Dispatcher.RunOnce(context.Background(), 2)
		require.NotZero(t, n)
		sent += n
	}
	require.Equal(t, int32(deliveries), got.Load())
	host := strings.TrimPrefix(srv.URL, "https://")
	require.Eventually(t, func() bool { return len(webtest.ProxyDecisions(t, host)) >= deliveries }, 5*time.Second, 20*time.Millisecond)
	decisions := webtest.ProxyDecisions(t, host)
	require.Len(t, decisions, deliveries, "one CONNECT per delivery, none around the proxy")
	for _, d := range decisions {
		require.Equal(t, "connect", d.ProxyType)
		require.True(t, d.Allow)
	}
}

// smokescreen refuses private, link-local and metadata addresses even when
// the in-process check is told to allow private networks (as the tests'
// server is): the attempt fails as a forbidden address in the proxy's words.
func TestTheEgressProxyRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	proxy := webtest.WebhookProxy(t)
	s := webtest.New(t, webtest.WithDispatcher(dispatcher.Config{Proxy: proxy}))
	for _, target := range []string{"https://10.255.255.1:8443/hook", "http://192.168.255.1:9/hook"} {
		s.CreateWebhook(target, map[string]any{"events": []string{"payment.created"}})
	}
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 10))
	var ds []store.Delivery
	require.NoError(t, s.DB.NewSelect().Model(&ds).Scan(context.Background()))
	require.Len(t, ds, 2)
	for _, d := range ds {
		require.NotNil(t, d.LastError)
		require.Regexp(t, `^forbidden_address: .*address not allowed: the egress proxy refused (10\.255\.255\.1:8443|192\.168\.255\.1:9): `, *d.LastError)
		require.Contains(t, *d.LastError, "Deny: Private Range")
	}

	// Cloud metadata, asked of the proxy straight (the service's own
	// check refuses it before the proxy is ever asked).
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "https://169.254.169.254/latest/meta-data/"} {
		res, err := client.Get(target)
		if err == nil {
			res.Body.Close()
			require.Equal(t, http.StatusProxyAuthRequired, res.StatusCode, target)
			require.Contains(t, res.Header.Get("X-Smokescreen-Error"), "169.254.169.254")
		} else {
			require.Contains(t, err.Error(), "Request rejected by proxy", target)
		}
	}
	decisions := webtest.ProxyDecisions(t, "169.254.169.254:443")
	require.NotEmpty(t, decisions)
	require.False(t, decisions[len(decisions)-1].Allow)
}
