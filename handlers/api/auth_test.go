package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

func TestAPIKeyAuthentication(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	_, otherTest, _ := s.NewAccount("Outra Loja", "other@example.com")
	revokedKey, revokedSecret, err := s.Store.CreateAPIKey(context.Background(), s.Account.ID, false, store.NewAPIKey{})
	require.NoError(t, err)
	_, err = s.Store.RevokeAPIKey(context.Background(), s.Account.ID, revokedKey.ID)
	require.NoError(t, err)

	cases := []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"bearer", map[string]string{"Authorization": "Bearer " + s.TestKey}, 200, ""},
		{"bearer scheme is case-insensitive", map[string]string{"Authorization": "bearer " + s.TestKey}, 200, ""},
		{"x-api-key", map[string]string{"X-API-Key": s.TestKey}, 200, ""},
		{"both headers, same key", map[string]string{"Authorization": "Bearer " + s.TestKey, "X-API-Key": s.TestKey}, 200, ""},
		{"both headers, different keys", map[string]string{"Authorization": "Bearer " + s.TestKey, "X-API-Key": otherTest}, 400, "credentials_conflict"},
		{"no key", nil, 401, "api_key_missing"},
		{"unknown key", map[string]string{"Authorization": "Bearer sk_test_" + strings.Repeat("x", 32)}, 401, "api_key_invalid"},
		{"unknown x-api-key", map[string]string{"X-API-Key": "sk_live_nope"}, 401, "api_key_invalid"},
		{"not a key at all", map[string]string{"X-API-Key": "hello"}, 401, "api_key_invalid"},
		{"basic scheme", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, 401, "api_key_invalid"},
		{"bearer without token", map[string]string{"Authorization": "Bearer "}, 401, "api_key_invalid"},
		{"revoked key", map[string]string{"Authorization": "Bearer " + revokedSecret}, 401, "api_key_revoked"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Headers: c.headers})
		require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
		if c.code == "" {
			continue
		}
		require.Equal(t, c.code, r.ErrorCode(t), c.name)
		wantType := "authentication_error"
		if c.status == 400 {
			wantType = "invalid_request_error"
		}
		require.Equal(t, wantType, r.JSON(t)["error"].(map[string]any)["type"], c.name)
	}
	missing := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments"})
	require.Equal(t, `Bearer realm="payments"`, missing.Header.Get("WWW-Authenticate"))

	// No secret, right or wrong, reaches the logs.
	logs := s.Logs.String()
	for _, secret := range []string{s.TestKey, s.LiveKey, otherTest, revokedSecret, "sk_test_" + strings.Repeat("x", 32)} {
		require.NotContains(t, logs, secret)
	}
	require.Contains(t, logs, `"msg":"request"`, "requests are logged")
}

func TestOtherAccountsAndModesAreNotFound(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	_, otherTest, _ := s.NewAccount("Outra Loja", "other@example.com")
	p := s.CreatePayment(map[string]any{"amount_cents": 1000, "external_id": "mine"})
	id := p["id"].(string)

	for _, key := range []string{otherTest, s.LiveKey} {
		for _, ref := range []string{id, "mine"} {
			for _, req := range []webtest.Request{
				{Method: "GET", Path: "/api/v1/payments/" + ref},
				{Method: "DELETE", Path: "/api/v1/payments/" + ref},
			} {
				req.Key = key
				r := s.Do(req)
				require.Equal(t, http.StatusNotFound, r.Status, "%s %s", req.Method, req.Path)
				require.Equal(t, "resource_missing", r.ErrorCode(t))
				require.Equal(t, "id", r.ErrorParam(t))
			}
		}
	}
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: otherTest})
	require.Equal(t, http.StatusNotFound, r.Status)

	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: otherTest}).JSON(t)
	require.Empty(t, list["data"])
	list = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: s.LiveKey}).JSON(t)
	require.Empty(t, list["data"], "a live key does not see test payments")

	mine := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey})
	require.Equal(t, http.StatusOK, mine.Status)
	require.Equal(t, "pending", mine.JSON(t)["status"], "nothing the others tried changed it")
}

func TestLiveKeyCreatesLivePayments(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey, Body: map[string]any{"amount_cents": 250}})
	require.Equal(t, http.StatusCreated, r.Status)
	require.Equal(t, true, r.JSON(t)["livemode"])
	// The same external_id may exist once per mode.
	for _, key := range []string{s.TestKey, s.LiveKey} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: key, Body: map[string]any{"amount_cents": 250, "external_id": "same"}})
		require.Equal(t, http.StatusCreated, r.Status)
	}
}

func TestCachedKeyStopsWorkingWithinTheTTLAfterRevocation(t *testing.T) {
	t.Parallel()
	// A TTL long enough that the second request lands within it on a busy
	// machine (at 300 ms a loaded CI machine took longer between the two).
	s := webtest.New(t, webtest.WithAPIKeyCache(2*time.Second))
	k, secret, err := s.Store.CreateAPIKey(context.Background(), s.Account.ID, false, store.NewAPIKey{})
	require.NoError(t, err)
	get := func() int { return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: secret}).Status }
	require.Equal(t, http.StatusOK, get())
	_, err = s.Store.RevokeAPIKey(context.Background(), s.Account.ID, k.ID)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, get(), "trusted from the cache until the TTL runs out")
	require.Eventually(t, func() bool { return get() == http.StatusUnauthorized }, 6*time.Second, 50*time.Millisecond)
	require.Equal(t, http.StatusUnauthorized, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: "sk_test_" + strings.Repeat("x", 32)}).Status,
		"unknown keys are never cached as valid")
}
