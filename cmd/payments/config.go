package main

import (
	"cmp"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"payments/tracing"
	"payments/web"
)

// config is read from the environment once, in main, and passed down.
type config struct {
	DatabaseURL string
	// MigrateDatabaseURL is the tables' owner's connection, which applies
	// the migrations (MIGRATE_DATABASE_URL); DATABASE_URL is then the
	// service's own role (a member of payments_service), which may not
	// change the audit trail. Unset: DATABASE_URL migrates too.
	MigrateDatabaseURL string
	DBMaxConns         int
	// ReplicaURL is a streaming standby of DATABASE_URL's server for the
	// reads that may lag (REPLICA_DATABASE_URL, optional); one further than
	// ReplicaMaxLag behind is skipped.
	ReplicaURL                  string
	ReplicaMaxLag               time.Duration
	ListenAddr                  string
	BaseURL                     string
	SecretKey                   []byte
	RedisURL                    string
	PSPToken                    string
	WebhookAllowPrivateNetworks bool
	// WebhookProxy is the HTTP CONNECT proxy deliveries leave through
	// (WEBHOOK_PROXY_URL, optional); WebhookClientCert the platform's own
	// client certificate (WEBHOOK_CLIENT_CERT_FILE and
	// WEBHOOK_CLIENT_KEY_FILE, PEM, optional).
	WebhookProxy      *url.URL
	WebhookClientCert *tls.Certificate
	LogLevel          slog.Level
	// DebugAddr, when set, serves net/http/pprof there (keep it on loopback).
	DebugAddr string
	// MetricsAddr, when set, serves /metrics there too (a dispatcher-only
	// process has no other listener); MetricsToken guards /metrics.
	MetricsAddr, MetricsToken string
	// TrustedProxies are reverse proxies whose X-Forwarded-For is believed.
	TrustedProxies []string
	// Tracing turns OpenTelemetry traces on (OTEL_EXPORTER_OTLP_ENDPOINT).
	Tracing           tracing.Config
	RateLimitLive     int
	RateLimitTest     int
	StreamsPerKey     int
	StreamsPerAccount int
	APIKeyCacheTTL    time.Duration
	PixKey            string
	PixCity           string
	// PixReceiverName is the name the platform's key is registered under
	// (PIX_RECEIVER_NAME): what a payer's bank shows as the receiver of
	// every Pix, so the payer's pages say the merchant is paid via it.
	PixReceiverName      string
	ExpiryInterval       time.Duration
	ShutdownTimeout      time.Duration
	AttemptRetention     time.Duration
	EventRetention       time.Duration
	DispatcherWorkers    int
	DispatcherPerWebhook int
	DispatcherLease      time.Duration
	// PSP is the payment service provider of live mode (off without PSP_BASE_URL).
	PSP pspConfig
	// SMTPURL is where e-mail goes (verification, resets, invitations,
	// notices); MailFrom is its sender. Without SMTP_URL mail stays queued.
	SMTPURL, MailFrom string
	// SessionIdle and SessionMaxAge end dashboard sessions idle that long,
	// or that old.
	SessionIdle, SessionMaxAge time.Duration
}

// devPixKey is an EVP-shaped placeholder so local runs produce valid BR
// Codes; production sets PIX_KEY to the platform's real key.
const devPixKey = "00000000-0000-4000-8000-000000000000"

// loadConfig reads the environment through getenv. It never puts a secret
// value into an error message.
func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		DatabaseURL:        getenv("DATABASE_URL"),
		MigrateDatabaseURL: getenv("MIGRATE_DATABASE_URL"),
		ReplicaURL:         getenv("REPLICA_DATABASE_URL"),
		ListenAddr:         orDefault(getenv("LISTEN_ADDR"), "127.0.0.1:8080"),
		RedisURL:           getenv("REDIS_URL"),
		PSPToken:           getenv("PSP_TOKEN"),
		DebugAddr:          getenv("DEBUG_ADDR"),
		MetricsAddr:        getenv("METRICS_ADDR"), MetricsToken: getenv("METRICS_TOKEN"),
		TrustedProxies: splitList(getenv("TRUSTED_PROXIES")),
		Tracing: tracing.Config{Endpoint: cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT")),
			ServiceName: getenv("OTEL_SERVICE_NAME")},
		SMTPURL: getenv("SMTP_URL"), MailFrom: orDefault(getenv("MAIL_FROM"), "Pagamentos <nao-responda@localhost>"),
		PixKey:          orDefault(getenv("PIX_KEY"), devPixKey),
		PixCity:         orDefault(getenv("PIX_MERCHANT_CITY"), "SAO PAULO"),
		PixReceiverName: orDefault(getenv("PIX_RECEIVER_NAME"), "Pagamentos"),
	}
	var errs []error
	if cfg.DatabaseURL == "" {
		errs = append(errs, errors.New("DATABASE_URL is required (a postgres:// URL)"))
	}
	cfg.BaseURL = strings.TrimRight(orDefault(getenv("BASE_URL"), "http://"+cfg.ListenAddr), "/")
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		errs = append(errs, errors.New("BASE_URL must start with http:// or https://"))
	}
	if v := getenv("SECRET_KEY"); v != "" {
		key, err := decodeSecretKey(v)
		if err != nil {
			errs = append(errs, err)
		}
		cfg.SecretKey = key
	}
	var err error
	if cfg.WebhookAllowPrivateNetworks, err = parseBool(getenv, "WEBHOOK_ALLOW_PRIVATE_NETWORKS", false); err != nil {
		errs = append(errs, err)
	}
	if v := getenv("WEBHOOK_PROXY_URL"); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("WEBHOOK_PROXY_URL must be an http:// or https:// URL of an HTTP CONNECT proxy, e.g. http://127.0.0.1:4750"))
		}
		cfg.WebhookProxy = u
	}
	certFile, keyFile := getenv("WEBHOOK_CLIENT_CERT_FILE"), getenv("WEBHOOK_CLIENT_KEY_FILE")
	switch {
	case certFile != "" && keyFile != "":
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("WEBHOOK_CLIENT_CERT_FILE and WEBHOOK_CLIENT_KEY_FILE: %w", err))
		}
		cfg.WebhookClientCert = &pair
	case certFile != "" || keyFile != "":
		errs = append(errs, errors.New("WEBHOOK_CLIENT_CERT_FILE and WEBHOOK_CLIENT_KEY_FILE go together"))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(orDefault(getenv("LOG_LEVEL"), "info"))); err != nil {
		errs = append(errs, errors.New("LOG_LEVEL must be debug, info, warn or error"))
	}
	ints := []struct {
		name     string
		def, min int
		dst      *int
	}{
		{"RATE_LIMIT_LIVE", 100, 1, &cfg.RateLimitLive},
		{"RATE_LIMIT_TEST", 25, 1, &cfg.RateLimitTest},
		{"EVENT_STREAMS_PER_KEY", web.DefaultStreamsPerKey, 1, &cfg.StreamsPerKey},
		{"EVENT_STREAMS_PER_ACCOUNT", web.DefaultStreamsPerAccount, 1, &cfg.StreamsPerAccount},
		{"DB_MAX_CONNS", 20, 2, &cfg.DBMaxConns},
		{"DISPATCHER_WORKERS", 32, 1, &cfg.DispatcherWorkers},
		{"DISPATCHER_PER_WEBHOOK", 8, 1, &cfg.DispatcherPerWebhook},
	}
	for _, i := range ints {
		if *i.dst, err = parseInt(getenv, i.name, i.def, i.min); err != nil {
			errs = append(errs, err)
		}
	}
	durations := []struct {
		name string
		def  time.Duration
		dst  *time.Duration
	}{
		{"EXPIRY_SWEEP_INTERVAL", 5 * time.Second, &cfg.ExpiryInterval},
		{"SHUTDOWN_TIMEOUT", 20 * time.Second, &cfg.ShutdownTimeout},
		{"ATTEMPT_RETENTION", 30 * 24 * time.Hour, &cfg.AttemptRetention},
		{"EVENT_RETENTION", 30 * 24 * time.Hour, &cfg.EventRetention},
		{"DISPATCHER_LEASE", 60 * time.Second, &cfg.DispatcherLease},
		{"API_KEY_CACHE_TTL", 2 * time.Second, &cfg.APIKeyCacheTTL},
		{"SESSION_IDLE_TIMEOUT", web.DefaultSessionIdle, &cfg.SessionIdle},
		{"SESSION_MAX_AGE", web.DefaultSessionMaxAge, &cfg.SessionMaxAge},
		{"REPLICA_MAX_LAG", 5 * time.Second, &cfg.ReplicaMaxLag},
	}
	for _, d := range durations {
		if *d.dst, err = parseDuration(getenv, d.name, d.def); err != nil {
			errs = append(errs, err)
		}
	}
	if cfg.ReplicaMaxLag < 100*time.Millisecond {
		errs = append(errs, errors.New("REPLICA_MAX_LAG must be at least 100ms"))
	}
	if cfg.EventRetention < MinEventRetention {
		errs = append(errs, fmt.Errorf("EVENT_RETENTION must be at least %s: the Events API promises 30 days", MinEventRetention))
	}
	var pspErrs []error
	cfg.PSP, pspErrs = loadPSPConfig(getenv, getenv("PIX_KEY") != "")
	errs = append(errs, pspErrs...)
	return cfg, errors.Join(errs...)
}

// splitList reads a comma-separated list, blanks dropped.
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// MinEventRetention is the shortest EVENT_RETENTION: integrators can list
// and recover at least 30 days of events.
const MinEventRetention = 30 * 24 * time.Hour

// decodeSecretKey accepts 32 bytes as 64 hex characters or standard/URL base64.
func decodeSecretKey(v string) ([]byte, error) {
	if b, err := hex.DecodeString(v); err == nil && len(b) == 32 {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(v); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	return nil, errors.New("SECRET_KEY must be 32 bytes, as 64 hex characters or base64 (generate one with: openssl rand -hex 32)")
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func parseBool(getenv func(string) string, name string, def bool) (bool, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def, fmt.Errorf("%s must be true or false", name)
	}
	return b, nil
}

func parseInt(getenv func(string) string, name string, def, min int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return def, fmt.Errorf("%s must be an integer >= %d", name, min)
	}
	return n, nil
}

func parseDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return def, fmt.Errorf("%s must be a positive duration like 5s or 1m", name)
	}
	return d, nil
}
