package dispatcher

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/net/idna"
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
	"::/96",              // IPv4-compatible IPv6 (deprecated): ::127.0.0.1
	"::ffff:0:0:0/96",    // IPv4-translated (SIIT)
	"64:ff9b:1::/48",     // local-use NAT64
	"2001::/32",          // Teredo: embeds an IPv4 address
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

// nat64 is the well-known NAT64 prefix: a DNS64 resolver answers an
// IPv4-only host's address inside it, so it is judged as that IPv4 address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// asIPv4 is the IPv4 address an IPv4-mapped or well-known NAT64 address
// carries; any other address as it is.
func asIPv4(addr netip.Addr) netip.Addr {
	addr = addr.Unmap()
	if nat64.Contains(addr) {
		b := addr.As16()
		return netip.AddrFrom4([4]byte(b[12:16]))
	}
	return addr
}

// CheckAddress refuses loopback, private (RFC 1918, ULA fc00::/7),
// link-local, CGNAT, multicast, unspecified, metadata and other
// non-public addresses. Every IPv6 form that embeds an IPv4 address is
// judged as that address (IPv4-mapped, well-known NAT64) or refused
// outright (IPv4-compatible, IPv4-translated, local-use NAT64, 6to4,
// Teredo): none reaches an address its IPv4 form could not.
func CheckAddress(addr netip.Addr) error {
	addr = asIPv4(addr)
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

// dialGuard makes a dialer's Control that runs after DNS resolution, on the
// exact address about to be dialed, so neither a hostname nor a DNS
// rebinding can reach an address check refuses.
func dialGuard(check func(netip.Addr) error) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
		}
		addr, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
		}
		return check(addr)
	}
}

// MaxURL is the longest webhook URL, as the client wrote it.
const MaxURL = 2048

// URLError says why a webhook URL was refused: Problem names it for a
// page's words ("invalid", "too_long", "scheme", "credentials", "fragment",
// "host"), Error is the API's message.
type URLError struct {
	Problem string
	msg     string
}

func (e *URLError) Error() string { return e.msg }

// CheckURL is the one rule for a webhook URL, the API's and the dashboard's
// alike: it returns the URL as it is stored (an internationalized host in
// punycode, scheme and host in lower case) or a *URLError. The dialer's
// guard is the real one, applied after DNS resolution on every attempt;
// this gives early, clear feedback. With allowPrivate (development) http,
// loopback and private addresses pass, link-local and cloud-metadata
// addresses never do.
func CheckURL(raw string, allowPrivate bool) (string, error) {
	bad := func(problem, format string, args ...any) (string, error) {
		return "", &URLError{Problem: problem, msg: fmt.Sprintf(format, args...)}
	}
	if len(raw) > MaxURL {
		return bad("too_long", "url must be at most %d characters.", MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return bad("invalid", "url must be an absolute URL like https://example.com/webhooks.")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "https" && !(allowPrivate && u.Scheme == "http") {
		return bad("scheme", "url must use https.")
	}
	if u.User != nil {
		return bad("credentials", "url must not contain credentials.")
	}
	if u.Fragment != "" {
		return bad("fragment", "url must not contain a fragment.")
	}
	hostname := u.Hostname()
	if addr, err := netip.ParseAddr(hostname); err == nil {
		if err := checkURLAddress(addr, allowPrivate); err != nil {
			return bad("host", "url must point to a public address, not %s.", addr)
		}
		u.Host = strings.ToLower(u.Host)
		return u.String(), nil
	}
	ascii, err := idna.Lookup.ToASCII(hostname)
	if err != nil {
		return bad("invalid", "url's host %q is not a valid host name.", hostname)
	}
	if ascii != hostname {
		u.Host = strings.Replace(u.Host, hostname, ascii, 1)
	}
	u.Host = strings.ToLower(u.Host)
	// A resolver ignores one final dot: "localhost." is localhost.
	host := strings.TrimSuffix(strings.ToLower(ascii), ".")
	if addr, err := netip.ParseAddr(host); err == nil {
		if err := checkURLAddress(addr, allowPrivate); err != nil {
			return bad("host", "url must point to a public address, not %s.", addr)
		}
		return u.String(), nil
	}
	// Spellings of an IPv4 address that C resolvers accept (inet_aton:
	// 2130706433, 0x7f.1, 0177.0.0.1, 127.1) are refused: an address is
	// written as four decimal numbers, which the check above judged.
	if addr, ok := legacyIPv4(host); ok {
		return bad("host", "url must write an IPv4 address as four decimal numbers (a.b.c.d), not %s (%s).", host, addr)
	}
	if !allowPrivate && (host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local")) {
		return bad("host", "url must point to a public host, not %s.", host)
	}
	return u.String(), nil
}

// checkURLAddress judges an address written in a URL: CheckAddress, or in
// development only never link-local (the cloud metadata service lives there).
func checkURLAddress(addr netip.Addr, allowPrivate bool) error {
	if !allowPrivate {
		return CheckAddress(addr)
	}
	return checkDevAddress(addr)
}

// metadataV6 is the cloud metadata service's IPv6 address (a ULA, which
// development otherwise allows).
var metadataV6 = netip.MustParseAddr("fd00:ec2::254")

// checkDevAddress is the development guard: loopback and private networks
// are allowed, link-local and cloud-metadata addresses are not.
func checkDevAddress(addr netip.Addr) error {
	if a := asIPv4(addr); a.IsLinkLocalUnicast() || a == metadataV6 {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, addr)
	}
	return nil
}

// legacyIPv4 reads host as inet_aton does: one to four parts separated by
// dots, each decimal, octal (leading 0) or hexadecimal (0x), the last
// filling the bytes left. ok is false for anything else (a hostname).
func legacyIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" && base != 16 || len(digits) > 32 {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(cmp.Or(digits, "0"), base, 64)
		if err != nil {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals {
		if i < len(vals)-1 {
			if v > 0xff {
				return netip.Addr{}, false
			}
			n |= v << (8 * (3 - i))
			continue
		}
		if room := uint(8 * (4 - i)); v >= 1<<room {
			return netip.Addr{}, false
		}
		n |= v
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
