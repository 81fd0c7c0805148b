package dispatcher

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
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
	client       *http.Client
	allowPrivate bool
}

// NewSender returns a sender whose dialer refuses non-public addresses
// unless allowPrivate (dev/test only), which also permits plain http.
func NewSender(allowPrivate bool) *Sender {
	dialer := &net.Dialer{Timeout: ConnectTimeout, KeepAlive: 30 * time.Second}
	dialer.Control = dialGuard(CheckAddress)
	if allowPrivate {
		dialer.Control = dialGuard(checkDevAddress) // never link-local or cloud metadata, even in development
	}
	transport := &http.Transport{
		Proxy:                  nil, // an environment proxy would bypass the address guard
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    ConnectTimeout,
		ResponseHeaderTimeout:  AttemptTimeout,
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
		MaxIdleConns:           512,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	return &Sender{
		allowPrivate: allowPrivate,
		client: &http.Client{
			Transport: transport,
			// A redirect is an answer, not an instruction: it is recorded as a failure.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
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

// Send POSTs body to rawURL with headers, within AttemptTimeout.
func (s *Sender) Send(ctx context.Context, rawURL string, headers map[string]string, body []byte) Result {
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
	resp, err := s.client.Do(req)
	if err != nil {
		return finish(classify(err), err)
	}
	defer resp.Body.Close()
	res.StatusCode = resp.StatusCode
	res.Header = resp.Header
	// Read at most the cap; closing the rest unread drops the connection
	// instead of downloading an endless body.
	res.Body, err = io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody+1))
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
	case errors.As(err, &tlsErr), errors.As(err, &certErr):
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
