package apipix

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Config is how to reach a PSP.
type Config struct {
	// BaseURL is the API Pix root, e.g. https://pix.example.com/v2: paths
	// like /cob/{txid} are appended to it.
	BaseURL string
	// PayoutURL is the payout port's root (its paths are /v3/gn/pix/{idEnvio}
	// and /v2/gn/pix/enviados/id-envio/{idEnvio}); empty is BaseURL's origin.
	PayoutURL string
	// TokenURL is the OAuth2 token endpoint.
	TokenURL     string
	ClientID     string
	ClientSecret string
	// CertFile and KeyFile are the client certificate mutual TLS presents;
	// CAFile verifies the PSP's server certificate (empty: the system's roots).
	CertFile, KeyFile, CAFile string
	// Timeout bounds one HTTP exchange (10 s when zero).
	Timeout time.Duration
}

// Scopes of the calls, as API Pix names them (the payout port's after Efí's).
const (
	ScopeCobWrite     = "cob.write"
	ScopeCobRead      = "cob.read"
	ScopePixRead      = "pix.read"
	ScopePixWrite     = "pix.write"
	ScopeWebhookWrite = "webhook.write"
	ScopePayoutWrite  = "pix.send"
	ScopePayoutRead   = "gn.pix.send.read"
)

// Client calls one PSP. It is safe for concurrent use.
type Client struct {
	cfg       Config
	http      *http.Client
	tokens    *tokenSource
	base      *url.URL
	payoutURL *url.URL
}

// New checks cfg and loads its certificates. Nothing is sent yet.
func New(cfg Config) (*Client, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http") {
		return nil, errors.New("apipix: PSP_BASE_URL must be an absolute https URL")
	}
	payout := &url.URL{Scheme: base.Scheme, Host: base.Host}
	if cfg.PayoutURL != "" {
		if payout, err = url.Parse(strings.TrimRight(cfg.PayoutURL, "/")); err != nil || payout.Host == "" {
			return nil, errors.New("apipix: the payout URL must be an absolute URL")
		}
	}
	if cfg.TokenURL == "" || cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("apipix: PSP_TOKEN_URL, PSP_CLIENT_ID and PSP_CLIENT_SECRET are required")
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("apipix: PSP_CA_FILE: %w", err)
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		if !tlsConfig.RootCAs.AppendCertsFromPEM(pem) {
			return nil, errors.New("apipix: PSP_CA_FILE holds no PEM certificate")
		}
	}
	if cfg.CertFile != "" || cfg.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("apipix: PSP_CERT_FILE/PSP_KEY_FILE: %w", err)
		}
		tlsConfig.Certificates = []tls.Certificate{cert}
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 5 * time.Second,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	c := &Client{cfg: cfg, base: base, payoutURL: payout,
		http: &http.Client{Transport: transport, Timeout: cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	c.tokens = newTokenSource(c)
	return c, nil
}

// Error is a PSP's answer other than success.
type Error struct {
	Status  int
	Problem Problem
	op      string
}

func (e *Error) Error() string {
	detail := e.Problem.Title
	if e.Problem.Detail != "" {
		detail += ": " + e.Problem.Detail
	}
	if detail == "" {
		detail = http.StatusText(e.Status)
	}
	return fmt.Sprintf("apipix: %s: %d %s", e.op, e.Status, detail)
}

// Temporary reports whether trying again may succeed: the PSP's own
// failures, throttling, timeouts. A 4xx says the request itself is refused.
func (e *Error) Temporary() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout
}

// ErrNotFound is a 404: the PSP has no such object.
var ErrNotFound = errors.New("apipix: not found")

func (e *Error) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound
}

// Permanent reports whether err is the PSP refusing the request (a 4xx
// other than throttling): sending it again cannot succeed.
func Permanent(err error) bool {
	var apiErr *Error
	return errors.As(err, &apiErr) && !apiErr.Temporary()
}

// PutCob creates the immediate charge txid.
func (c *Client) PutCob(ctx context.Context, txid string, req CobRequest) (*Cob, error) {
	var out Cob
	return &out, c.do(ctx, http.MethodPut, c.api("/cob/"+url.PathEscape(txid)), ScopeCobWrite, req, &out, "put cob")
}

// GetCob reads the charge txid.
func (c *Client) GetCob(ctx context.Context, txid string) (*Cob, error) {
	var out Cob
	return &out, c.do(ctx, http.MethodGet, c.api("/cob/"+url.PathEscape(txid)), ScopeCobRead, nil, &out, "get cob")
}

// PatchCob revises the charge txid (RemoveCob removes it).
func (c *Client) PatchCob(ctx context.Context, txid string, rev CobRevision) (*Cob, error) {
	var out Cob
	return &out, c.do(ctx, http.MethodPatch, c.api("/cob/"+url.PathEscape(txid)), ScopeCobWrite, rev, &out, "patch cob")
}

// GetPix reads the Pix e2eid: the proof of a transfer received.
func (c *Client) GetPix(ctx context.Context, e2eid string) (*Pix, error) {
	var out Pix
	return &out, c.do(ctx, http.MethodGet, c.api("/pix/"+url.PathEscape(e2eid)), ScopePixRead, nil, &out, "get pix")
}

// ListPix reads page (from 0) of the Pix received from inicio to fim.
func (c *Client) ListPix(ctx context.Context, inicio, fim time.Time, page, perPage int) (*PixList, error) {
	q := url.Values{"inicio": {inicio.UTC().Format(time.RFC3339)}, "fim": {fim.UTC().Format(time.RFC3339)},
		"paginacao.paginaAtual": {strconv.Itoa(page)}, "paginacao.itensPorPagina": {strconv.Itoa(perPage)}}
	var out PixList
	return &out, c.do(ctx, http.MethodGet, c.api("/pix")+"?"+q.Encode(), ScopePixRead, nil, &out, "list pix")
}

// PutDevolucao asks for the devolução id of the Pix e2eid; the same id
// again is the same devolução.
func (c *Client) PutDevolucao(ctx context.Context, e2eid, id string, req DevolucaoRequest) (*Devolucao, error) {
	var out Devolucao
	return &out, c.do(ctx, http.MethodPut, c.api("/pix/"+url.PathEscape(e2eid)+"/devolucao/"+url.PathEscape(id)),
		ScopePixWrite, req, &out, "put devolucao")
}

// GetDevolucao reads the devolução id of the Pix e2eid.
func (c *Client) GetDevolucao(ctx context.Context, e2eid, id string) (*Devolucao, error) {
	var out Devolucao
	return &out, c.do(ctx, http.MethodGet, c.api("/pix/"+url.PathEscape(e2eid)+"/devolucao/"+url.PathEscape(id)),
		ScopePixRead, nil, &out, "get devolucao")
}

// PutWebhook registers webhookURL for the Pix received with chave.
func (c *Client) PutWebhook(ctx context.Context, chave, webhookURL string) error {
	return c.do(ctx, http.MethodPut, c.api("/webhook/"+url.PathEscape(chave)), ScopeWebhookWrite,
		WebhookRequest{WebhookURL: webhookURL}, nil, "put webhook")
}

// PutPayout sends a payout; the same idEnvio again is the same payout.
func (c *Client) PutPayout(ctx context.Context, idEnvio string, req PayoutRequest) (*Payout, error) {
	var out Payout
	return &out, c.do(ctx, http.MethodPut, c.payout("/v3/gn/pix/"+url.PathEscape(idEnvio)), ScopePayoutWrite, req, &out, "put payout")
}

// GetPayout reads the payout idEnvio.
func (c *Client) GetPayout(ctx context.Context, idEnvio string) (*Payout, error) {
	var out Payout
	return &out, c.do(ctx, http.MethodGet, c.payout("/v2/gn/pix/enviados/id-envio/"+url.PathEscape(idEnvio)),
		ScopePayoutRead, nil, &out, "get payout")
}

func (c *Client) api(path string) string    { return c.base.String() + path }
func (c *Client) payout(path string) string { return c.payoutURL.String() + path }

// do sends one request with a token for scope and decodes a 2xx answer into
// out. A 401 drops the cached token and tries once more with a new one.
func (c *Client) do(ctx context.Context, method, target, scope string, body, out any, op string) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("apipix: %s: %w", op, err)
		}
	}
	for try := 0; ; try++ {
		token, err := c.tokens.token(ctx, scope)
		if err != nil {
			return fmt.Errorf("apipix: %s: %w", op, err)
		}
		status, answer, err := c.send(ctx, method, target, "Bearer "+token, payload)
		if err != nil {
			return fmt.Errorf("apipix: %s: %w", op, err)
		}
		if status == http.StatusUnauthorized && try == 0 {
			c.tokens.forget(scope, token)
			continue
		}
		if status < 200 || status > 299 {
			apiErr := &Error{Status: status, op: op}
			_ = json.Unmarshal(answer, &apiErr.Problem)
			return apiErr
		}
		if out == nil || len(bytes.TrimSpace(answer)) == 0 {
			return nil
		}
		if err := json.Unmarshal(answer, out); err != nil {
			return fmt.Errorf("apipix: %s: the PSP's answer is not the expected JSON: %w", op, err)
		}
		return nil
	}
}

// maxAnswer bounds what is read of one answer.
const maxAnswer = 4 << 20

// send makes one exchange and returns the status and the body. Only the
// method and the URL's path appear in its errors: never a credential.
func (c *Client) send(ctx context.Context, method, target, authorization string, payload []byte) (int, []byte, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", authorization)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, redact(err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return 0, nil, redact(err)
	}
	return res.StatusCode, answer, nil
}

// redact drops the query (a list's dates, never secrets, but a URL is a
// URL) from an HTTP client error: the method and path stay.
func redact(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if u, perr := url.Parse(urlErr.URL); perr == nil {
			u.RawQuery, u.User = "", nil
			urlErr.URL = u.String()
		}
	}
	return err
}

// Trouble names, for a person, what went wrong in a call whose error text
// this client wrote (a PSP call's last_error): "unavailable" (the PSP
// answered 5xx), "credentials" (its token or mutual TLS was refused),
// "refused" (it refused the request itself, 4xx), "timeout", "unreachable"
// (no connection), or "other". The text itself stays for the technically
// minded: it is what the PSP said.
func Trouble(text string) string {
	lower := strings.ToLower(text)
	switch {
	case strings.Contains(lower, "apipix: token"), strings.Contains(lower, "certificate"), strings.Contains(lower, "tls:"):
		return "credentials"
	case strings.Contains(lower, "timeout"), strings.Contains(lower, "deadline exceeded"):
		return "timeout"
	case strings.Contains(lower, "connection refused"), strings.Contains(lower, "no such host"),
		strings.Contains(lower, "dial tcp"), strings.Contains(lower, "connection reset"), strings.Contains(lower, "eof"):
		return "unreachable"
	}
	if m := troubleStatus.FindStringSubmatch(text); m != nil {
		switch status, _ := strconv.Atoi(m[1]); {
		case status >= 500:
			return "unavailable"
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			return "credentials"
		case status >= 400:
			return "refused"
		}
	}
	return "other"
}

// troubleStatus finds the PSP's status in an Error's text ("apipix: put cob: 503 ...").
var troubleStatus = regexp.MustCompile(`^apipix: [^:]+: ([1-5][0-9]{2})\b`)
