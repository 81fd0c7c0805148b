package dispatcher

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrForbiddenAddress is returned when a webhook's host resolves to an
// address the service must never call: the SSRF guard.
var ErrForbiddenAddress = errors.New("dispatcher: address not allowed")

var forbiddenPrefixes = mustPrefixes(
	"0.0.0.0/8",          // "this network"
	"100.64.0.0/10",      // carrier-grade NAT
	"192.0.0.0/24",       // IETF protocol assignments
	"192.0.2.0/24",       // documentation
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // documentation
	"203.0.113.0/24",     // documentation
	"240.0.0.0/4",        // reserved, broadcast
	"64:ff9b::/96",       // NAT64: embeds an IPv4 address
	"64:ff9b:1::/48",     // local-use NAT64
	"2001:db8::/32",      // documentation
	"2002::/16",          // 6to4: embeds an IPv4 address
	"fec0::/10",          // deprecated site-local
	"fd00:ec2::254/128",  // cloud metadata over IPv6 (also inside fc00::/7)
	"169.254.169.254/32", // cloud metadata (also link-local)
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// CheckAddress refuses loopback, private (RFC 1918, ULA fc00::/7),
// link-local, CGNAT, multicast, unspecified, metadata and other
// non-public addresses. IPv4-mapped IPv6 addresses are judged as IPv4.
func CheckAddress(addr netip.Addr) error {
	addr = addr.Unmap()
	switch {
	case !addr.IsValid(),
		addr.IsLoopback(),
		addr.IsPrivate(),
		addr.IsLinkLocalUnicast(),
		addr.IsLinkLocalMulticast(),
		addr.IsInterfaceLocalMulticast(),
		addr.IsMulticast(),
		addr.IsUnspecified():
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, addr)
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(addr) {
			return fmt.Errorf("%w: %s", ErrForbiddenAddress, addr)
		}
	}
	return nil
}

// guardedControl runs after DNS resolution, on the exact address about to be
// dialed, so neither a hostname nor a DNS rebinding can reach a forbidden one.
func guardedControl(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	return CheckAddress(addr)
}

// CheckURL gives early, clear feedback on a webhook URL, for the API and
// the dashboard; the dialer's guard is the real one, applied after DNS
// resolution on every attempt. The error's text is the client's message.
func CheckURL(raw string, allowPrivate bool) error {
	bad := func(format string, args ...any) error { return fmt.Errorf(format, args...) }
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return bad("url must be an absolute URL like https://example.com/webhooks.")
	}
	if u.Scheme != "https" && !(allowPrivate && u.Scheme == "http") {
		return bad("url must use https.")
	}
	if u.User != nil {
		return bad("url must not contain credentials.")
	}
	if u.Fragment != "" {
		return bad("url must not contain a fragment.")
	}
	if allowPrivate {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local") {
		return bad("url must point to a public host, not %s.", host)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if err := CheckAddress(addr); err != nil {
			return bad("url must point to a public address, not %s.", addr)
		}
	}
	return nil
}
