package apipix

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// tokenSource gets OAuth2 access tokens with the client credentials grant,
// one per scope (each call asks only for what it needs), and keeps each
// until shortly before it expires: a minute, or a tenth of its life when
// that is shorter. Concurrent callers of one scope share one request.
type tokenSource struct {
	c   *Client
	now func() time.Time

	mu     sync.Mutex
	tokens map[string]*cachedToken
}

type cachedToken struct {
	mu      sync.Mutex // held while this scope's token is fetched
	value   string
	renewAt time.Time
}

func newTokenSource(c *Client) *tokenSource {
	return &tokenSource{c: c, now: time.Now, tokens: map[string]*cachedToken{}}
}

func (ts *tokenSource) entry(scope string) *cachedToken {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.tokens[scope]
	if !ok {
		t = &cachedToken{}
		ts.tokens[scope] = t
	}
	return t
}

// token returns a valid token for scope, fetching one when none is cached
// or the cached one is due for renewal.
func (ts *tokenSource) token(ctx context.Context, scope string) (string, error) {
	t := ts.entry(scope)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.value != "" && ts.now().Before(t.renewAt) {
		return t.value, nil
	}
	tok, err := ts.fetch(ctx, scope)
	if err != nil {
		return "", err
	}
	life := time.Duration(tok.ExpiresIn) * time.Second
	if life <= 0 {
		life = time.Minute
	}
	margin := min(time.Minute, life/10)
	t.value, t.renewAt = tok.AccessToken, ts.now().Add(life-margin)
	return t.value, nil
}

// forget drops the cached token of scope if it is still value (the PSP
// refused it), so the next call fetches another.
func (ts *tokenSource) forget(scope, value string) {
	t := ts.entry(scope)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.value == value {
		t.value = ""
	}
}

// ErrToken is a token endpoint that refused the credentials or answered
// something else than a token. Its text never holds the secret.
var ErrToken = errors.New("apipix: the PSP's token endpoint refused the client credentials")

func (ts *tokenSource) fetch(ctx context.Context, scope string) (*Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}.Encode()
	basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(ts.c.cfg.ClientID) + ":" + url.QueryEscape(ts.c.cfg.ClientSecret)))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.c.cfg.TokenURL, strings.NewReader(form))
	if err != nil {
		return nil, errors.New("apipix: PSP_TOKEN_URL is not a valid URL")
	}
	req.Header.Set("Authorization", "Basic "+basic)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := ts.c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("apipix: token: %w", redact(err))
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusBadRequest {
		return nil, fmt.Errorf("%w (HTTP %d)", ErrToken, res.StatusCode)
	}
	if res.StatusCode != http.StatusOK {
		return nil, &Error{Status: res.StatusCode, op: "token"}
	}
	var tok Token
	if err := json.NewDecoder(http.MaxBytesReader(nil, res.Body, 64<<10)).Decode(&tok); err != nil || tok.AccessToken == "" {
		return nil, fmt.Errorf("%w (no access_token in the answer)", ErrToken)
	}
	if !strings.EqualFold(tok.TokenType, "bearer") {
		return nil, fmt.Errorf("%w (token_type %q, not Bearer)", ErrToken, tok.TokenType)
	}
	return &tok, nil
}
