package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
	"payments/store/storetest"
)

func runJSON(t *testing.T, env map[string]string, args ...string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	require.NoError(t, run(context.Background(), args, envOf(env), &out, &errOut), "stderr: %s", errOut.String())
	var m map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &m), "stdout: %s", out.String())
	return m
}

func TestAdminCommandsPrintJSON(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": storetest.URL(t)}

	require.Equal(t, map[string]any{"applied": []any{}}, runJSON(t, env, "migrate"), "the template is migrated already")

	acct := runJSON(t, env, "accounts", "create", "--name", "Padaria", "--email", "padaria@example.com")
	require.Regexp(t, `^acct_`, acct["account_id"])
	require.Regexp(t, `^sk_test_[0-9A-Za-z]{32}$`, acct["key"])
	require.Len(t, acct["password"], 20, "a generated password is printed once")

	key := runJSON(t, env, "apikeys", "create", "--account", acct["account_id"].(string), "--mode", "live")
	require.Regexp(t, `^sk_live_[0-9A-Za-z]{32}$`, key["key"])
	require.Equal(t, "live", key["mode"])

	revoked := runJSON(t, env, "apikeys", "revoke", "--account", acct["account_id"].(string), "--key", key["key_id"].(string))
	require.Equal(t, key["key_id"], revoked["key_id"])
	require.NotEmpty(t, revoked["revoked_at"])

	support := runJSON(t, env, "users", "create", "--role", "support", "--email", "help@example.com", "--password", "a-long-password")
	require.Equal(t, "support", support["role"])
	require.NotContains(t, support, "password", "a password given on the command line is not echoed")

	first := runJSON(t, env, "demo")
	second := runJSON(t, env, "demo")
	require.Equal(t, first["account_id"], second["account_id"], "demo reuses its account")
	require.NotEqual(t, first["test_key"], second["test_key"], "and prints a fresh key each time")
	require.Equal(t, "demo@example.com", second["email"])

	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"accounts", "create", "--name", "Padaria Dois", "--email", "padaria@example.com"}, envOf(env), &out, &errOut)
	require.ErrorContains(t, err, "already exists")
	err = run(context.Background(), []string{"users", "create", "--role", "owner", "--email", "o@example.com"}, envOf(env), &out, &errOut)
	require.ErrorContains(t, err, "--account")
}

func TestServeAnswersThenShutsDownCleanly(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": storetest.URL(t), "LISTEN_ADDR": "127.0.0.1:0", "SHUTDOWN_TIMEOUT": "5s",
		"SECRET_KEY": strings.Repeat("7f", 32)}
	ctx, cancel := context.WithCancel(context.Background())
	var logs testbin.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, envOf(env), &bytes.Buffer{}, &logs) }()

	addr := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	var base string
	require.Eventually(t, func() bool {
		m := addr.FindStringSubmatch(logs.String())
		if m != nil {
			base = "http://" + m[1]
		}
		return m != nil
	}, 10*time.Second, 20*time.Millisecond)
	res, err := http.Get(base + "/readyz")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	cancel() // what SIGTERM does through signal.NotifyContext
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	require.Contains(t, logs.String(), `"msg":"stopped"`)
	require.Regexp(t, `"level":"INFO","msg":"request","request_id":"req_[^"]+","method":"GET","path":"/readyz","status":200,`, logs.String(),
		"the access line reaches the log")
	require.False(t, strings.Contains(logs.String(), "postgres://"), "the database URL is never logged")
}
