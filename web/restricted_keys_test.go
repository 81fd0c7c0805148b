package web_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
	"payments/store"
	"payments/web/webtest"
)

// adminKey makes a key with the admin command, as an operator would, and
// returns what it printed.
func adminKey(t *testing.T, s *webtest.Server, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(testbin.Path(t, "PAYMENTS_BIN", "./cmd/payments"),
		append([]string{"apikeys", "create", "--account", s.Account.ID, "--mode", "test"}, args...)...)
	cmd.Env = []string{"DATABASE_URL=" + s.DBURL, "SECRET_KEY=" + hex.EncodeToString(s.SecretKey)}
	out, err := cmd.Output()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		out = append(out, exit.Stderr...)
	}
	require.NoError(t, err, "%s", out)
	var printed map[string]any
	require.NoError(t, json.Unmarshal(out, &printed), "%s", out)
	return printed
}

// A restricted key does what its permissions say and is refused the rest
// with 403 permission_denied naming the permission; a key with an
// allow-list works only from it; full keys are unchanged; a key's last use
// is recorded (in the background) with its address.
func TestRestrictedAndAllowListedKeys(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	paid := s.CreatePayment(map[string]any{"amount_cents": 1_000})

	reader := adminKey(t, s, "--name", "ERP", "--permissions", "payments:read")
	require.Regexp(t, `^rk_test_[0-9A-Za-z]{32}$`, reader["key"])
	require.Equal(t, []any{"payments:read"}, reader["permissions"])
	require.Equal(t, "ERP", reader["name"])
	rk := reader["key"].(string)

	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: rk})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Body)
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + paid["id"].(string), Key: rk})
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Body)

	for _, refused := range []struct {
		method, path string
		needed       string
	}{
		{"POST", "/api/v1/payments", "payments:write"},
		{"DELETE", "/api/v1/payments/" + paid["id"].(string), "payments:write"},
		{"GET", "/api/v1/refunds", "refunds:read"},
		{"POST", "/api/v1/payments/" + paid["id"].(string) + "/refund", "refunds:write"},
		{"GET", "/api/v1/balance", "balance:read"},
		{"POST", "/api/v1/withdrawals", "withdrawals:write"},
		{"GET", "/api/v1/events", "events:read"},
		{"GET", "/api/v1/webhooks", "webhooks:read"},
		{"POST", "/api/v1/webhooks", "webhooks:write"},
	} {
		r := s.Do(webtest.Request{Method: refused.method, Path: refused.path, Key: rk, Body: map[string]any{"amount_cents": 100}})
		require.Equal(t, http.StatusForbidden, r.Status, "%s %s: %s", refused.method, refused.path, r.Body)
		require.Equal(t, "permission_denied", r.ErrorCode(t))
		require.Contains(t, r.JSON(t)["error"].(map[string]any)["message"], refused.needed, refused.path)
	}
	count := 0
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments WHERE account_id = ?", s.Account.ID).Scan(context.Background(), &count))
	require.Equal(t, 1, count, "a refused create creates nothing")

	// Write includes read.
	writer := adminKey(t, s, "--permissions", "refunds:write,payments:read")["key"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/refunds", Key: writer}).Status)

	elsewhere := adminKey(t, s, "--name", "Servidor fixo", "--allowed-ips", "203.0.113.0/24, 198.51.100.7")
	require.Equal(t, []any{"203.0.113.0/24", "198.51.100.7/32"}, elsewhere["allowed_ips"])
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: elsewhere["key"].(string)})
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	require.Equal(t, "ip_not_allowed", r.ErrorCode(t))
	here := adminKey(t, s, "--allowed-ips", "127.0.0.1")["key"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: here}).Status)

	// sk_ keys behave as before.
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).Status)

	// Bad permissions and addresses are refused by the command.
	for _, bad := range [][]string{{"--permissions", "payments:delete"}, {"--permissions", "team:write"}, {"--allowed-ips", "10.0.0.300"}} {
		cmd := exec.Command(testbin.Path(t, "PAYMENTS_BIN", "./cmd/payments"),
			append([]string{"apikeys", "create", "--account", s.Account.ID, "--mode", "test"}, bad...)...)
		cmd.Env = []string{"DATABASE_URL=" + s.DBURL, "SECRET_KEY=" + hex.EncodeToString(s.SecretKey)}
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "%v: %s", bad, out)
	}

	// Last use: written within moments, with the address.
	key, err := s.Store.APIKeyBySecret(context.Background(), rk)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var k store.APIKey
		require.NoError(t, s.DB.NewSelect().Model(&k).Where("id = ?", key.ID).Scan(context.Background()))
		return k.LastUsedAt != nil && k.LastUsedIP != nil && *k.LastUsedIP == "127.0.0.1"
	}, 5*time.Second, 50*time.Millisecond)
}

// A key that may refund but not read payments gets the refunded payment
// back without what only payments:read shows (the payer, the description,
// the metadata); a key that may read payments gets it whole.
func TestARestrictedKeysAnswerCarriesOnlyWhatItMayRead(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	refundsOnly := adminKey(t, s, "--permissions", "refunds:write")["key"].(string)
	reader := adminKey(t, s, "--permissions", "refunds:write,payments:read")["key"].(string)
	pay := func() string {
		p := s.CreatePayment(map[string]any{"amount_cents": 5_000, "description": "Pedido 77",
			"customer": map[string]any{"name": "Maria Silva", "document": "52998224725", "email": "maria@example.com"},
			"metadata": map[string]any{"pedido": "77"}})
		id := p["id"].(string)
		require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey}).Status)
		return id
	}
	bare := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + pay() + "/refund", Key: refundsOnly, Body: map[string]any{"amount_cents": 1_000}})
	require.Equal(t, http.StatusOK, bare.Status, "%s", bare.Body)
	p := bare.JSON(t)
	require.Nil(t, p["customer"], "%s", bare.Body)
	require.Nil(t, p["description"])
	require.Equal(t, map[string]any{}, p["metadata"])
	require.NotContains(t, string(bare.Body), "Maria")
	require.Equal(t, float64(1_000), p["amount_refunded_cents"], "the money fields stay")

	whole := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + pay() + "/refund", Key: reader, Body: map[string]any{"amount_cents": 1_000}}).JSON(t)
	require.Equal(t, "Maria Silva", whole["customer"].(map[string]any)["name"])
	require.Equal(t, map[string]any{"pedido": "77"}, whole["metadata"])
	require.Equal(t, "Pedido 77", whole["description"])
}
