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
		"64:ff9b::a9fe:a9fe", "64:ff9b::a00:1", // NAT64 embedding the metadata address, 10.0.0.1
		"64:ff9b:1::808:808",                                                      // local-use NAT64, even of a public address
		"::127.0.0.1", "::7f00:1", "::10.0.0.1", "::169.254.169.254", "::8.8.8.8", // IPv4-compatible (deprecated)
		"::ffff:0:127.0.0.1", "::ffff:0:808:808", // IPv4-translated
		"2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1", // Teredo
		"2002:808:808::1", // 6to4, even of a public address
		"198.18.0.1", "192.0.0.8", "240.0.0.1",
	}
	for _, s := range refused {
		require.ErrorIs(t, dispatcher.CheckAddress(netip.MustParseAddr(s)), dispatcher.ErrForbiddenAddress, s)
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "200.147.67.142", "172.32.0.1", "100.128.0.1",
		"::ffff:8.8.8.8", "64:ff9b::808:808", // mapped and well-known NAT64 forms of a public address
	} {
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
	guarded := dispatcher.NewSender(dispatcher.SenderConfig{})
	for _, url := range []string{
		"https://localhost:" + port + "/hook",
		"https://127.0.0.1:" + port + "/hook",
		"https://[::ffff:127.0.0.1]:" + port + "/hook",
		"https://[::127.0.0.1]:" + port + "/hook",
	} {
		res := guarded.Send(context.Background(), url, nil, nil, []byte("{}"))
		require.Equal(t, dispatcher.ErrClassForbiddenAddress, res.ErrClass, "%s: %s", url, res.ErrMessage)
	}
	res := guarded.Send(context.Background(), strings.Replace(srv.URL, "https", "http", 1), nil, nil, []byte("{}"))
	require.Equal(t, dispatcher.ErrClassInsecureURL, res.ErrClass, "plain http is refused without the dev flag")
	require.Zero(t, hits)
}

// The URL rule refuses every spelling of a non-public address before the
// dialer is ever reached: numeric IPv4 forms that C resolvers accept, IPv6
// forms embedding an IPv4 address, a final dot.
func TestCheckURLRefusesEveryNumericSpelling(t *testing.T) {
	t.Parallel()
	for _, host := range []string{
		"2130706433", "0x7f000001", "017700000001", // 127.0.0.1 as one number
		"0177.0.0.1", "0x7f.0.0.1", "0x7f.0x0.0x0.0x1", "127.1", "127.0.1", "0x7f.1", // octal, hex, short forms
		"2852039166", "0xa9fea9fe", "169.254.43518", // 169.254.169.254
		"167772161", "10.1", "012.0.0.1", // 10.0.0.1
		"3232235777", "192.168.257", // 192.168.1.1
		"134744072", "0x8080808", "8.8.2056", // 8.8.8.8 too: only a.b.c.d is an address
		"0", "0.0", "00",
		"[::127.0.0.1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::1]",
		"[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "[::ffff:0:10.0.0.1]",
		"127.0.0.1.", "localhost.", "[::1]",
	} {
		_, err := dispatcher.CheckURL("https://"+host+"/hook", false)
		require.Error(t, err, host)
	}
	for _, host := range []string{
		"8.8.8.8", "example.com", "0x7f.example.com", "127.example.com", "1.2.3.4.example.com", "api.loja-01.com.br",
		"[2606:4700:4700::1111]", "[64:ff9b::808:808]", "xn--loj-gla.com.br",
	} {
		_, err := dispatcher.CheckURL("https://"+host+"/hook", false)
		require.NoError(t, err, host)
	}
}

// One rule for both doors: the URL as stored (internationalized hosts in
// punycode, scheme and host in lower case), its length, and in development
// (private networks allowed) still no link-local or cloud-metadata address.
func TestCheckURLNormalizesAndHoldsInDevelopment(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://Lojá.Example.COM.br/Hooks?a=B": "https://xn--loj-gla.example.com.br/Hooks?a=B",
		"HTTPS://example.com:8443/x":            "https://example.com:8443/x",
		"https://例え.jp/hook":                    "https://xn--r8jz45g.jp/hook",
	} {
		got, err := dispatcher.CheckURL(in, false)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := dispatcher.CheckURL("https://example.com/"+strings.Repeat("a", 3_000), false)
	var problem *dispatcher.URLError
	require.ErrorAs(t, err, &problem)
	require.Equal(t, "too_long", problem.Problem)

	for _, raw := range []string{"http://169.254.169.254/latest", "http://[fe80::1]/x", "http://169.254.1.1/x",
		"http://[::ffff:169.254.169.254]/x", "http://[fd00:ec2::254]/x"} {
		_, err := dispatcher.CheckURL(raw, true)
		require.ErrorAs(t, err, &problem, raw)
		require.Equal(t, "host", problem.Problem, raw)
	}
	for _, raw := range []string{"http://127.0.0.1:3000/hooks", "http://localhost:3000/hooks", "http://10.0.0.5/x"} {
		_, err := dispatcher.CheckURL(raw, true)
		require.NoError(t, err, raw)
	}
	// The dialer holds the same line in development, whatever a name resolves to.
	res := dispatcher.NewSender(dispatcher.SenderConfig{AllowPrivate: true}).Send(context.Background(), "http://169.254.169.254/latest/meta-data", nil, nil, []byte("{}"))
	require.Equal(t, dispatcher.ErrClassForbiddenAddress, res.ErrClass, res.ErrMessage)
}
