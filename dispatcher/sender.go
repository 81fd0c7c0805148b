package dispatcher

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of one attempt (DESIGN: Delivery).
const (
	ConnectTimeout = 5 * time.Second
	AttemptTimeout = 15 * time.Second
	// MaxResponseBody is what is kept of an answer's body; more is not
	// read, and store.TruncatedBodyHeader says so on the attempt.
	MaxResponseBody = 16 << 10
	// MaxStoredRequestBody is what an attempt keeps of the body it sent
	// (the event, in full in the events table and the Events API); past
	// it, store.TruncatedBodyHeader says how long the body was. A row past about
	// 8 kB is compressed (lz4, migration 031).
	MaxStoredRequestBody = 16 << 10
	// MaxResponseHeaderBytes bounds what is read of an answer's headers:
	// more fails the attempt (network). Of what is read, the first
	// MaxStoredResponseHeaders bytes (names and values) are kept.
	MaxResponseHeaderBytes   = 1 << 20
	MaxStoredResponseHeaders = 8 << 10
)

// Error classes recorded on failed attempts.
const (
	ErrClassTimeout          = "timeout"
	ErrClassConnRefused      = "connection_refused"
	ErrClassConnReset        = "connection_reset"
	ErrClassDNS              = "dns"
	ErrClassTLS              = "tls"
	ErrClassForbiddenAddress = "forbidden_address"
	ErrClassInsecureURL      = "insecure_url"
	ErrClassRedirect         = "redirect"
	ErrClassHTTPStatus       = "http_status"
	ErrClassNetwork          = "network"
)

// ErrorClasses lists every class an attempt's error may have (and
// "internal", an attempt that could not be made at all).
var ErrorClasses = []string{ErrClassTimeout, ErrClassConnRefused, ErrClassConnReset, ErrClassDNS, ErrClassTLS, ErrClassForbiddenAddress,
	ErrClassInsecureURL, ErrClassRedirect, ErrClassHTTPStatus, ErrClassNetwork, "internal"}

// Sender makes single HTTP attempts to receivers.
type Sender struct {
	allowPrivate bool
	check        func(netip.Addr) error
	// proxied: attempts leave through an HTTP CONNECT proxy, which resolves
	// and dials the receiver; the address guard then checks the receiver's
	// addresses here first (checkTarget), and the dialer reaches the proxy.
	proxied bool
	// base is the shared transport, which every webhook's own TLS
	// settings are cloned from (their transports in profiles, by webhook).
	base     *http.Transport
	mu       sync.Mutex
	profiles map[string]*profileTransport
}

// SenderConfig sets up a Sender.
type SenderConfig struct {
	// AllowPrivate lifts the address guard (dev/test only) and permits plain http.
	AllowPrivate bool
	// Proxy, when set, is the HTTP CONNECT proxy every attempt leaves through
	// (WEBHOOK_PROXY_URL).
	Proxy *url.URL
	// ClientCertificate, when set, is the platform's own client certificate,
	// presented to receivers that ask for one, unless a webhook has its own.
	ClientCertificate *tls.Certificate
}

// NewSender returns a sender whose dialer refuses non-public addresses
// unless AllowPrivate (dev/test only), which also permits plain http.
func NewSender(cfg SenderConfig) *Sender {
	s := &Sender{allowPrivate: cfg.AllowPrivate, check: CheckAddress, proxied: cfg.Proxy != nil,
		profiles: map[string]*profileTransport{}}
	if cfg.AllowPrivate {
		s.check = checkDevAddress // never link-local or cloud metadata, even in development
	}
	dialer := &net.Dialer{Timeout: ConnectTimeout, KeepAlive: 30 * time.Second}
	if !s.proxied {
		dialer.Control = dialGuard(s.check)
	}
	s.base = &http.Transport{
		Proxy:                  nil, // an environment proxy would bypass the address guard; WEBHOOK_PROXY_URL is set below
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    ConnectTimeout,
		ResponseHeaderTimeout:  AttemptTimeout,
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
		MaxIdleConns:           512,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		// No Accept-Encoding: gzip asked for behind each request's back: an
		// answer is kept as its receiver sent it (at most MaxResponseBody of
		// it), and asking made the transport a header map of its own per
		// request, a twentieth of what a delivery allocated (BENCHMARKS.md).
		DisableCompression: true,
	}
	if cfg.Proxy != nil {
		s.base.Proxy = http.ProxyURL(cfg.Proxy)
		// A CONNECT the proxy refuses (smokescreen: 407 and why in
		// X-Smokescreen-Error) is a forbidden address, in the proxy's words.
		s.base.OnProxyConnectResponse = func(_ context.Context, _ *url.URL, req *http.Request, res *http.Response) error {
			if res.StatusCode == http.StatusOK {
				return nil
			}
			return proxyRefusal(req.Host, res)
		}
	}
	if cfg.ClientCertificate != nil {
		s.base.TLSClientConfig.Certificates = []tls.Certificate{*cfg.ClientCertificate}
	}
	return s
}

// TLSProfile is a webhook's own TLS settings: the client certificate it
// presents (nil: the platform's, if any) and the CAs its receiver's
// certificate must chain to (nil: the system's roots). Each version of the
// settings is a profile of its own (Dispatcher.tlsProfile): a new one
// replaces the webhook's client and its connections.
type TLSProfile struct {
	WebhookID   string
	Certificate *tls.Certificate
	RootCAs     *x509.CertPool
	// Presented and Pinned describe the settings in an attempt's error.
	Presented string
	Pinned    string
	// source is what the profile was parsed from.
	source tlsSource
}

type profileTransport struct {
	profile   *TLSProfile
	transport *http.Transport
}

// transportFor returns the transport of p (the shared one for nil).
func (s *Sender) transportFor(p *TLSProfile) *http.Transport {
	if p == nil {
		return s.base
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.profiles[p.WebhookID]; ok {
		if c.profile == p {
			return c.transport
		}
		c.transport.CloseIdleConnections()
	}
	t := s.base.Clone()
	t.TLSClientConfig = t.TLSClientConfig.Clone()
	if p.Certificate != nil {
		t.TLSClientConfig.Certificates = []tls.Certificate{*p.Certificate}
	}
	t.TLSClientConfig.RootCAs = p.RootCAs
	c := &profileTransport{profile: p, transport: t}
	s.profiles[p.WebhookID] = c
	return c.transport
}

// Result is what one attempt produced.
type Result struct {
	StatusCode int
	Header     http.Header
	// Body is the first MaxResponseBody bytes of the response;
	// BodyTruncated says there was more.
	Body          []byte
	BodyTruncated bool
	Duration      time.Duration
	ErrClass      string
	ErrMessage    string
	RetryAfter    time.Duration
	Success       bool
	RequestStart  time.Time
}

// Send POSTs body to rawURL with headers, within AttemptTimeout, with the
// webhook's TLS settings (nil: the shared ones).
func (s *Sender) Send(ctx context.Context, rawURL string, profile *TLSProfile, headers map[string]string, body []byte) Result {
	start := time.Now()
	res := Result{RequestStart: start}
	finish := func(class string, err error) Result {
		res.Duration = time.Since(start)
		res.ErrClass = class
		if err != nil {
			res.ErrMessage = err.Error()
		}
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil || (req.URL.Scheme != "https" && !(s.allowPrivate && req.URL.Scheme == "http")) {
		return finish(ErrClassInsecureURL, errors.New("webhook URL must be https"))
	}
	// The names go out as written (Header.Set would canonicalize each one,
	// an allocation apiece for the Standard Webhooks' lower-case names), into
	// a map sized for them (eleven headers outgrow a map made empty, which
	// then grows twice per attempt), each value a slice of one array.
	req.Header = make(http.Header, len(headers))
	values, i := make([]string, len(headers)), 0
	for k, v := range headers {
		values[i] = v
		req.Header[k] = values[i : i+1 : i+1] // capped: an Add cannot reach the next value
		i++
	}
	if s.proxied {
		if err := s.checkTarget(ctx, req.URL.Hostname()); err != nil {
			return finish(classify(err), err)
		}
	}
	resp, err := roundTrip(s.transportFor(profile), req)
	if err != nil {
		class := classify(err)
		if class == ErrClassTLS {
			err = tlsInWords(err, profile)
		}
		return finish(class, err)
	}
	defer resp.Body.Close()
	if s.proxied && resp.StatusCode == http.StatusProxyAuthRequired {
		// The proxy's answer to a plain-http request (development), not the receiver's.
		return finish(ErrClassForbiddenAddress, proxyRefusal(req.URL.Host, resp))
	}
	res.StatusCode = resp.StatusCode
	res.Header = resp.Header
	// Read at most the cap; closing the rest unread drops the connection
	// instead of downloading an endless body.
	res.Body, err = readBody(resp.Body, resp.ContentLength)
	if err != nil && !errors.Is(err, io.EOF) {
		return finish(classify(err), err)
	}
	if len(res.Body) > MaxResponseBody {
		res.Body, res.BodyTruncated = res.Body[:MaxResponseBody], true
	}
	res.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		res.Success = true
		return finish("", nil)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return finish(ErrClassRedirect, errors.New("redirects are not followed: "+resp.Header.Get("Location")))
	}
	return finish(ErrClassHTTPStatus, errors.New(resp.Status))
}

// readBody reads an answer's body, at most MaxResponseBody+1 bytes of it
// (one more says there was more). A body that declares its length gets a
// buffer of that length, none when it is empty: io.ReadAll starts every read
// with 512 bytes, a twentieth of what the dispatcher allocated per delivery
// to receivers that answer with no body (BENCHMARKS.md).
func readBody(body io.Reader, length int64) ([]byte, error) {
	if length < 0 || length > MaxResponseBody {
		return io.ReadAll(io.LimitReader(body, MaxResponseBody+1))
	}
	buf := make([]byte, length)
	n, err := io.ReadFull(body, buf)
	return buf[:n], err
}

// roundTrip sends req once on t, as an http.Client that follows no
// redirect would (a redirect is an answer, not an instruction: it is
// recorded as a failure): the URL's user and password as basic
// authentication, and errors as the client words them ("Post \"url\":
// ...", the password hidden). Not through an http.Client: it copies every
// request's headers for the redirects it might follow, a twentieth of what
// the dispatcher allocated while draining deliveries (BENCHMARKS.md, "A
// batch's buffer, kept").
func roundTrip(t *http.Transport, req *http.Request) (*http.Response, error) {
	if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
		password, _ := u.Password()
		req.SetBasicAuth(u.Username(), password)
	}
	resp, err := t.RoundTrip(req)
	if err != nil {
		if tlsErr, ok := err.(tls.RecordHeaderError); ok && string(tlsErr.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch
		}
		return nil, &url.Error{Op: "Post", URL: withoutPassword(req.URL), Err: err}
	}
	return resp, nil
}

// withoutPassword is u as http.Client shows it in an error: its password,
// if any, as "***".
func withoutPassword(u *url.URL) string {
	if _, set := u.User.Password(); set {
		return strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1)
	}
	return u.String()
}

func classify(err error) string {
	var dnsErr *net.DNSError
	var tlsErr *tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return ErrClassForbiddenAddress
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return ErrClassTimeout
	case errors.As(err, &dnsErr):
		return ErrClassDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return ErrClassConnRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return ErrClassConnReset
	case errors.As(err, &tlsErr), errors.As(err, &certErr), strings.Contains(err.Error(), "remote error: tls:"):
		return ErrClassTLS
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return ErrClassTimeout
	}
	return ErrClassNetwork
}

// parseRetryAfter reads delay-seconds or an HTTP date; zero when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// checkTarget applies the address guard to the receiver's host before an
// attempt leaves through the proxy (which resolves and checks it again):
// an IP literal, or every address its name resolves to.
func (s *Sender) checkTarget(ctx context.Context, host string) error {
	if addr, err := netip.ParseAddr(host); err == nil {
		return s.check(addr)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return err
	}
	for _, addr := range addrs {
		if err := s.check(addr); err != nil {
			return err
		}
	}
	return nil
}

// tlsInWords says why a TLS handshake failed, for the attempt's record.
func tlsInWords(err error, p *TLSProfile) error {
	pinned, presented := "", "no client certificate"
	if p != nil {
		pinned = p.Pinned
		if p.Presented != "" {
			presented = "the client certificate " + p.Presented
		}
	}
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var words string
	switch {
	case errors.As(err, &unknown) && pinned != "":
		words = "the receiver's certificate does not chain to the webhook's pinned server_ca (" + pinned + ")"
	case errors.As(err, &unknown):
		words = "the receiver's certificate is not signed by an authority this service trusts"
	case errors.As(err, &hostname):
		words = "the receiver's certificate is not for this host"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		words = "the receiver's certificate has expired or is not valid yet"
	case strings.Contains(err.Error(), "remote error: tls:"):
		words = "the receiver refused the TLS handshake (this webhook presented " + presented + ")"
	default:
		return err
	}
	return fmt.Errorf("%s: %w", words, err)
}

// proxyRefusal is the egress proxy's refusal to reach host, in its words
// (smokescreen's X-Smokescreen-Error), or its status line.
func proxyRefusal(host string, res *http.Response) error {
	why := strings.TrimSpace(res.Header.Get("X-Smokescreen-Error"))
	if why == "" {
		why = res.Status
	}
	return fmt.Errorf("%w: the egress proxy refused %s: %s", ErrForbiddenAddress, host, why)
}
