// Package web builds the Fiber application: its configuration, middleware
// order, error handler and routes.
package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"

	"payments/dispatcher"
	"payments/metrics"
	"payments/store"
)

// Config is the part of the service configuration the web layer needs.
type Config struct {
	BaseURL      string
	BodyLimit    int
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	IdleTimeout  time.Duration
	// RateLimitLive and RateLimitTest are requests per second per API key.
	RateLimitLive int
	RateLimitTest int
	// APIKeyCacheTTL is how long a looked-up API key is trusted without the
	// database; a revoked key works at most this long. 0 looks up every request.
	APIKeyCacheTTL time.Duration
	// AllowPrivateNetworks accepts http and private addresses in webhook URLs (dev/test only).
	AllowPrivateNetworks bool
	// PSPToken authenticates the PSP's dispute notifications.
	PSPToken string
	// LiveMode says a PSP is configured (PSP_BASE_URL): without one, live
	// keys cannot move money.
	LiveMode bool
	// ChargeWait bounds how long a live creation waits for the PSP to
	// register its charge.
	ChargeWait time.Duration
	// CallbackMTLS says the service terminates TLS and verifies the PSP's
	// client certificates: /psp/webhook/pix takes callbacks that showed one.
	CallbackMTLS bool
	// CallbackToken is the path token of /psp/webhook/{token}/pix (empty: off).
	CallbackToken string
	// TrustedProxies are the addresses (or CIDR ranges) of reverse proxies
	// whose X-Forwarded-For names the client (TRUSTED_PROXIES); none: the
	// connection's address is the client's.
	TrustedProxies []string
	// CounterPrefix namespaces the rate-limit and sign-in counters in
	// Redis ("" in production: every instance shares them).
	CounterPrefix string
	// MetricsToken, when set, is the bearer token /metrics asks for;
	// without it /metrics answers loopback and private addresses only.
	MetricsToken string
	// SandboxPayerURL is the PSP sandbox's payer page (development only):
	// the checkout of a live charge links to it.
	SandboxPayerURL string
	// PixReceiverName is the name a payer's bank shows as the receiver of
	// every Pix (the platform's, whose key takes them); the payer's pages
	// say the merchant is paid via it ("": they do not).
	PixReceiverName string
	// DeviceKey signs the device cookies of sign-in (derived from
	// SECRET_KEY; nil: none are issued, every sign-in counts as untrusted).
	DeviceKey []byte
	// SessionIdle and SessionMaxAge end a dashboard session idle that long,
	// or that old (0: DefaultSessionIdle, DefaultSessionMaxAge).
	SessionIdle, SessionMaxAge time.Duration
	// ReplicaMaxLag is how far behind the store's replica may be (0: no
	// replica); the dashboard keeps a browser's reads on the primary that
	// long after a change of its own.
	ReplicaMaxLag time.Duration
	// StreamsPerKey and StreamsPerAccount bound the event streams open at
	// once in this process (0: DefaultStreamsPerKey, DefaultStreamsPerAccount).
	StreamsPerKey, StreamsPerAccount int
}

// Default limits on event streams open at once, per process.
const (
	DefaultStreamsPerKey     = 10
	DefaultStreamsPerAccount = 25
)

// streamPoll is how often an account's event feed looks for new events.
const streamPoll = 250 * time.Millisecond

// Deps are the services the handlers use. Redis is nil when not configured.
type Deps struct {
	Store *store.Store
	Log   *slog.Logger
	// AccessLog receives a JSON line per request, shaped like Log's lines
	// (nil: none). It is apart from Log for speed (see accessLog).
	AccessLog io.Writer
	Redis     *redis.Client
	// Tester sends "send test" events: the dispatcher.
	Tester *dispatcher.Dispatcher
	// Metrics counts requests by route and status and serves /metrics (nil: none).
	Metrics *metrics.Metrics
	// Tracer makes a span of each request (nil: traces off).
	Tracer trace.Tracer
	// Closing is closed when the server starts shutting down: event
	// streams end then instead of holding the shutdown (nil: never).
	Closing <-chan struct{}
	// KeyUsage writes the API keys' "last used" (nil: not recorded); the
	// caller starts and stops it.
	KeyUsage *KeyUsage
}

// DefaultBodyLimit is the largest request body the service reads.
const DefaultBodyLimit = 4 << 20 // a batch of 1,000 charges with their terms and payers

// New returns the application with every route mounted.
func New(cfg Config, deps Deps) *fiber.App {
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = DefaultBodyLimit
	}
	app := fiber.New(fiber.Config{
		AppName:   "payments",
		BodyLimit: cfg.BodyLimit,
		// A request line and headers up to 8 KiB are read (nginx's line
		// limit): a long search pasted into the address bar reaches its
		// page. Past that fasthttp refuses before reading them all (431),
		// and closing on unread bytes can reset the connection before the
		// answer is read. 4 KiB more per connection than fasthttp's default.
		ReadBufferSize:        8 << 10,
		ReadTimeout:           orDefault(cfg.ReadTimeout, 10*time.Second),
		WriteTimeout:          orDefault(cfg.WriteTimeout, 30*time.Second),
		IdleTimeout:           orDefault(cfg.IdleTimeout, 120*time.Second),
		ErrorHandler:          errorHandler(deps.Log),
		DisableStartupMessage: true,
		JSONEncoder:           encodeJSON,
		CaseSensitive:         true,
		StrictRouting:         false,
		// Fiber would otherwise trust X-Forwarded-For from anyone.
		EnableIPValidation: true,
		// Behind a reverse proxy, the client's address (what sign-in
		// throttles count by) comes from X-Forwarded-For, and only when the
		// connection is from one of TrustedProxies.
		ProxyHeader:             proxyHeader(cfg.TrustedProxies),
		EnableTrustedProxyCheck: len(cfg.TrustedProxies) > 0,
		TrustedProxies:          cfg.TrustedProxies,
	})
	mountRoutes(app, cfg, deps)
	return app
}

func proxyHeader(trusted []string) string {
	if len(trusted) == 0 {
		return ""
	}
	return fiber.HeaderXForwardedFor
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// encodeJSON is Fiber's JSON encoder. A value with its own MarshalJSON (every
// API object) is rendered by it directly: json.Marshal would call it and then
// re-scan and compact its output, a second pass over every response.
func encodeJSON(v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(v)
}

// DeviceKey derives the key of sign-in device cookies from SECRET_KEY, so
// that every instance accepts the cookies of the others and the key is no
// other use's.
func DeviceKey(secretKey []byte) []byte {
	mac := hmac.New(sha256.New, secretKey)
	mac.Write([]byte("payments: dashboard device cookies"))
	return mac.Sum(nil)
}
