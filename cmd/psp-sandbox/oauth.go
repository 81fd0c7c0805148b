package main

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// issuer is the sandbox's OAuth2 token endpoint (client credentials) and
// the check of the tokens it issued: each call needs its scope.
type issuer struct {
	clientID, clientSecret string
	ttl                    time.Duration

	mu       sync.Mutex
	tokens   map[string]issued
	requests int // token requests answered with a token
}

type issued struct {
	scopes  []string
	expires time.Time
}

// allScopes are the scopes the sandbox grants.
var allScopes = []string{"cob.write", "cob.read", "cobv.write", "cobv.read", "lotecobv.write", "lotecobv.read", "rec.write", "rec.read", "cobr.write", "cobr.read", "solicrec.write", "solicrec.read", "payloadlocationrec.write", "payloadlocationrec.read",
	"webhookrec.write", "webhookrec.read", "webhookcobr.write", "webhookcobr.read", "pix.write", "pix.read", "webhook.write", "webhook.read",
	"pix.send", "gn.pix.send.read", "gn.infracoes.read", "gn.infracoes.write"}

// token handles POST /oauth/token.
func (is *issuer) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := basicAuth(r)
	if !ok || subtle.ConstantTimeCompare([]byte(id), []byte(is.clientID)) != 1 ||
		subtle.ConstantTimeCompare([]byte(secret), []byte(is.clientSecret)) != 1 {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	scopes := strings.Fields(r.PostForm.Get("scope"))
	for _, s := range scopes {
		if !slices.Contains(allScopes, s) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_scope"})
			return
		}
	}
	if len(scopes) == 0 {
		scopes = allScopes
	}
	value := randomAlnum(40)
	is.mu.Lock()
	is.tokens[value] = issued{scopes: scopes, expires: time.Now().Add(is.ttl)}
	is.requests++
	is.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": value, "token_type": "Bearer",
		"expires_in": int(is.ttl.Seconds()), "scope": strings.Join(scopes, " ")})
}

// allowed reports whether r carries a live token granted scope: 401 when
// it carries none that is live, 403 when the token lacks the scope.
func (is *issuer) allowed(r *http.Request, scope string) int {
	value, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return http.StatusUnauthorized
	}
	is.mu.Lock()
	t, found := is.tokens[value]
	is.mu.Unlock()
	switch {
	case !found || time.Now().After(t.expires):
		return http.StatusUnauthorized
	case !slices.Contains(t.scopes, scope):
		return http.StatusForbidden
	}
	return http.StatusOK
}

func (is *issuer) tokenRequests() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.requests
}

// basicAuth reads client credentials as RFC 6749 sends them: each part
// form-encoded, then the pair in Basic.
func basicAuth(r *http.Request) (string, string, bool) {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Basic ")
	if !ok {
		return "", "", false
	}
	pair, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return "", "", false
	}
	id, secret, ok := strings.Cut(string(pair), ":")
	if !ok {
		return "", "", false
	}
	id, err1 := url.QueryUnescape(id)
	secret, err2 := url.QueryUnescape(secret)
	return id, secret, err1 == nil && err2 == nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
