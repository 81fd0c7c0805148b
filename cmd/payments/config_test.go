package main

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig(envOf(map[string]string{"DATABASE_URL": "postgres://localhost/x"}))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8080", cfg.ListenAddr)
	require.Equal(t, "http://127.0.0.1:8080", cfg.BaseURL)
	require.Equal(t, 100, cfg.RateLimitLive)
	require.Equal(t, 25, cfg.RateLimitTest)
	require.Equal(t, slog.LevelInfo, cfg.LogLevel)
	require.Equal(t, 5*time.Second, cfg.ExpiryInterval)
	require.False(t, cfg.WebhookAllowPrivateNetworks)
	require.Nil(t, cfg.SecretKey)
}

func TestLoadConfigOverrides(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig(envOf(map[string]string{
		"DATABASE_URL": "postgres://localhost/x", "LISTEN_ADDR": "0.0.0.0:9000", "BASE_URL": "https://pay.example.com/",
		"SECRET_KEY": strings.Repeat("ab", 32), "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true", "LOG_LEVEL": "debug",
		"RATE_LIMIT_LIVE": "500", "RATE_LIMIT_TEST": "50", "EXPIRY_SWEEP_INTERVAL": "1s",
	}))
	require.NoError(t, err)
	require.Equal(t, "https://pay.example.com", cfg.BaseURL, "trailing slash trimmed")
	require.Len(t, cfg.SecretKey, 32)
	require.True(t, cfg.WebhookAllowPrivateNetworks)
	require.Equal(t, slog.LevelDebug, cfg.LogLevel)
	require.Equal(t, 500, cfg.RateLimitLive)
	require.Equal(t, 50, cfg.RateLimitTest)
	require.Equal(t, time.Second, cfg.ExpiryInterval)
}

func TestLoadConfigReportsEveryProblemWithoutSecrets(t *testing.T) {
	t.Parallel()
	_, err := loadConfig(envOf(map[string]string{
		"BASE_URL": "ftp://x", "SECRET_KEY": "hunter2-not-a-key", "RATE_LIMIT_LIVE": "0",
		"LOG_LEVEL": "loud", "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "maybe", "EXPIRY_SWEEP_INTERVAL": "soon",
	}))
	require.Error(t, err)
	msg := err.Error()
	for _, name := range []string{"DATABASE_URL", "BASE_URL", "SECRET_KEY", "RATE_LIMIT_LIVE", "LOG_LEVEL", "WEBHOOK_ALLOW_PRIVATE_NETWORKS", "EXPIRY_SWEEP_INTERVAL"} {
		require.Contains(t, msg, name)
	}
	require.NotContains(t, msg, "hunter2")
}

func TestLoadPSPConfig(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://localhost/x"}
	cfg, err := loadConfig(envOf(base))
	require.NoError(t, err)
	require.False(t, cfg.PSP.on(), "no PSP_BASE_URL: live mode is off")

	live := map[string]string{"DATABASE_URL": "postgres://localhost/x", "PSP_BASE_URL": "https://pix.example.com/v2",
		"PSP_TOKEN_URL": "https://pix.example.com/oauth/token", "PSP_CLIENT_ID": "id", "PSP_CLIENT_SECRET": "s3cr3t-value",
		"PIX_KEY": "7d9f0335-8dcc-4054-9bf9-0dbd61d36906", "PSP_ACCOUNT_NUMBER": "1234567", "PSP_CHARGE_WAIT": "3s", "PSP_RECONCILE_INTERVAL": "30s"}
	cfg, err = loadConfig(envOf(live))
	require.NoError(t, err)
	require.True(t, cfg.PSP.on())
	require.Equal(t, 3*time.Second, cfg.PSP.ChargeWait)
	require.Equal(t, 30*time.Second, cfg.PSP.ReconcileInterval)
	require.Equal(t, time.Minute, cfg.PSP.Lease)

	bad := map[string]string{"DATABASE_URL": "postgres://localhost/x", "PSP_BASE_URL": "https://pix.example.com/v2",
		"PSP_CLIENT_SECRET": "s3cr3t-value", "PSP_CERT_FILE": "/c.pem", "PSP_CALLBACK_TOKEN": "short-s3cr3t",
		"PSP_CALLBACK_CA_FILE": "/ca.pem", "TLS_KEY_FILE": "/k.pem", "PSP_TIMEOUT": "never", "PSP_ACCOUNT_TYPE": "CONTA"}
	_, err = loadConfig(envOf(bad))
	require.Error(t, err)
	msg := err.Error()
	for _, name := range []string{"PSP_TOKEN_URL", "PSP_KEY_FILE", "PIX_KEY", "TLS_CERT_FILE", "PSP_CALLBACK_CA_FILE", "PSP_CALLBACK_TOKEN", "PSP_TIMEOUT", "PSP_ACCOUNT_NUMBER", "PSP_ACCOUNT_TYPE"} {
		require.Contains(t, msg, name)
	}
	require.NotContains(t, msg, "s3cr3t", "no value is repeated")
}
