package dispatcher_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
)

func TestCheckAddressRefusesNonPublicAddresses(t *testing.T) {
	t.Parallel()
	refused := []string{
		"127.0.0.1", "127.8.9.10", "::1", // loopback
		"10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", // RFC 1918
		"169.254.0.1", "169.254.169.254", "fe80::1", // link-local and cloud metadata
		"100.64.0.1", "100.127.255.254", // CGNAT
		"fc00::1", "fd12:3456::1", "fd00:ec2::254", // ULA, metadata over IPv6
		"::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", // IPv4-mapped IPv6
		"0.0.0.0", "::", "224.0.0.1", "ff02::1", "255.255.255.255", // unspecified, multicast, broadcast
		"64:ff9b::7f00:1", "2002:7f00:1::1", // NAT64 and 6to4 embedding 127.0.0.1
		"198.18.0.1", "192.0.0.8", "240.0.0.1",
	}
	for _, s := range refused {
		require.ErrorIs(t, dispatcher.CheckAddress(netip.MustParseAddr(s)), dispatcher.ErrForbiddenAddress, s)
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "200.147.67.142", "172.32.0.1", "100.128.0.1"} {
		require.NoError(t, dispatcher.CheckAddress(netip.MustParseAddr(s)), s)
	}
}

// TestGuardedSenderRefusesAfterResolution dials for real: a hostname that
// resolves to loopback is refused at the dialer, and the receiver sees nothing.
func TestGuardedSenderRefusesAfterResolution(t *testing.T) {
	t.Parallel()
	hits := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	guarded := dispatcher.NewSender(false)
	for _, url := range []string{
		"https://localhost:" + port + "/hook",
		"https://127.0.0.1:" + port + "/hook",
		"https://[::ffff:127.0.0.1]:" + port + "/hook",
	} {
		res := guarded.Send(context.Background(), url, nil, []byte("{}"))
		require.Equal(t, dispatcher.ErrClassForbiddenAddress, res.ErrClass, "%s: %s", url, res.ErrMessage)
	}
	res := guarded.Send(context.Background(), strings.Replace(srv.URL, "https", "http", 1), nil, []byte("{}"))
	require.Equal(t, dispatcher.ErrClassInsecureURL, res.ErrClass, "plain http is refused without the dev flag")
	require.Zero(t, hits)
}
