// Package webtest runs the real application on a loopback port over a fresh
// database, for tests that speak HTTP to it. Every response a test receives
// is checked against the OpenAPI document.
package webtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"

	"payments/dispatcher"
	"payments/dispatcher/reports"
	"payments/metrics"
	"payments/pix"
	"payments/pix/apipix/sandboxtest"
	"payments/store"
	"payments/store/storetest"
	"payments/web"
)

// PSPToken is the PSP shared token of test servers.
const PSPToken = "psp-test-token-0123456789"

// EnvRedisURL names the variable with the test Redis; `make test` sets it.
const EnvRedisURL = "TEST_REDIS_URL"

// Server is a running application with one account holding a test and a live key.
type Server struct {
	t     testing.TB
	URL   string
	DB    *bun.DB
	DBURL string
	// SecretKey seals this server's webhook secrets.
	SecretKey []byte
	Store     *store.Store
	Account   *store.Account
	TestKey   string
	LiveKey   string
	// Dispatcher delivers webhooks; call RunOnce unless WithRunningDispatcher.
	Dispatcher *dispatcher.Dispatcher
	// Logs holds everything the service logged; Logged reads it while the
	// service is still logging.
	Logs   *bytes.Buffer
	logOut *lockedWriter
	// PSP is the sandbox live mode talks to, with WithPSP.
	PSP *PSP
	// Client speaks to the server (it trusts the sandbox's CA when the
	// server terminates TLS).
	Client *http.Client
	// App is the application itself, for tests that walk its routes.
	App *fiber.App
	// DBProxy, with WithDBProxy, takes the service's database away and back.
	DBProxy *DBProxy
	// Replica, with WithReplica, serves the dashboard's lagging reads from
	// StandbyURL (the test database on the standby) through ReplicaProxy.
	Replica      *store.Replica
	ReplicaProxy *DBProxy
	StandbyURL   string
	// Metrics is what the service and its dispatcher count.
	Metrics *metrics.Metrics
	// Reports builds the pending reports: call BuildNext, or start it.
	Reports *reports.Builder
	opts    Options
}

// Options adjust the server before it starts.
type Options struct {
	Config web.Config
	Redis  *redis.Client
	// Now is the store's and the dispatcher's clock; nil is the real clock.
	Now func() time.Time
	// Dispatcher tunes the dispatcher; RunDispatcher starts its loop.
	Dispatcher    dispatcher.Config
	RunDispatcher bool
	// PSP turns live mode on against a sandbox (WithPSP).
	PSP *PSPOptions

	mail               bool
	localhost          bool
	privateNetworksOff bool
	dbProxy            bool
	tracer             trace.Tracer
}

// WithTrustedProxies believes X-Forwarded-For from these addresses.
func WithTrustedProxies(addrs ...string) Option {
	return func(o *Options) { o.Config.TrustedProxies = addrs }
}

// WithTracer traces requests and delivery attempts with tracer.
func WithTracer(tracer trace.Tracer) Option {
	return func(o *Options) { o.tracer = tracer; o.Dispatcher.Tracer = tracer }
}

// Option is one adjustment.
type Option func(*Options)

// WithRateLimits sets the per-second limits for live and test keys.
func WithRateLimits(live, test int) Option {
	return func(o *Options) { o.Config.RateLimitLive, o.Config.RateLimitTest = live, test }
}

// WithAPIKeyCache trusts looked-up API keys for ttl (0, the default, looks
// up every request).
func WithAPIKeyCache(ttl time.Duration) Option {
	return func(o *Options) { o.Config.APIKeyCacheTTL = ttl }
}

// WithLocalhost names the server http://localhost:<port> (it still
// listens on 127.0.0.1): passkeys need a domain for the site's id.
func WithLocalhost() Option { return func(o *Options) { o.localhost = true } }

// WithRedis backs the rate limiter with the test Redis.
func WithRedis(t testing.TB) Option {
	client := Redis(t)
	// The test's own counters (its siblings share them): tests run in
	// parallel from one address against one Redis.
	prefix := randomToken()[:12] + ":"
	return func(o *Options) { o.Redis, o.Config.CounterPrefix = client, prefix }
}

// WithClock gives the store an injected clock.
func WithClock(now func() time.Time) Option {
	return func(o *Options) { o.Now = now }
}

// WithRunningDispatcher runs the dispatcher loop in the background, as
// `payments serve` does; without it tests drive deliveries with RunOnce.
func WithRunningDispatcher() Option {
	return func(o *Options) { o.RunDispatcher = true }
}

// WithoutPrivateNetworks turns the dev flag off: webhook URLs must then be
// public https (the server can no longer deliver to loopback receivers).
func WithoutPrivateNetworks() Option {
	return func(o *Options) { o.privateNetworksOff = true }
}

// WithDispatcher tunes the dispatcher.
func WithDispatcher(cfg dispatcher.Config) Option {
	return func(o *Options) { o.Dispatcher = cfg }
}

// Redis connects to the test Redis, or fails the test: Redis-backed tests
// must run, never skip.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	url := os.Getenv(EnvRedisURL)
	if url == "" {
		t.Fatalf("%s is not set: run the suite with `make test`, which starts a private Redis", EnvRedisURL)
	}
	client, err := web.OpenRedis(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// New starts a server and stops it when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := Options{Config: web.Config{
		BaseURL:       "", // set once the port is known
		RateLimitLive: 100_000,
		RateLimitTest: 100_000,
		PSPToken:      PSPToken,
		// The sandbox's name for the platform's key, as `make run`'s.
		PixReceiverName: "Pagamentos",
	}}
	for _, opt := range opts {
		opt(&o)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	if o.localhost {
		// WebAuthn takes a domain, not an address, as the site's id.
		url = "http://localhost:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var sandbox *sandboxtest.Sandbox
	if o.PSP != nil {
		sandbox = sandboxtest.Start(t)
		o.Config.LiveMode, o.Config.ChargeWait = true, o.PSP.ChargeWait
		// The checkout links live codes to the sandbox's bank, as `make run` does.
		o.Config.SandboxPayerURL = sandbox.Payer + "/payer"
		if o.PSP.MTLS {
			ln, url = serveTLS(t, ln, sandbox), "https://"+ln.Addr().String()
			o.Config.CallbackMTLS = true
			client.Transport = &http.Transport{MaxIdleConnsPerHost: 64, TLSClientConfig: trusting(t, sandbox)}
		} else {
			o.Config.CallbackToken = randomToken()
		}
	}
	o.Config.BaseURL = url
	// The server runs as the service's role, as in production: not the
	// tables' owner (storetest.ServiceRole).
	dbURL := storetest.ServiceURL(t)
	serviceURL := dbURL
	var proxy *DBProxy
	if o.dbProxy {
		proxy, serviceURL = storetest.StartProxy(t, dbURL)
	}
	db, err := store.Open(context.Background(), serviceURL, 20)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	secretKey := randomKey()
	if o.Config.DeviceKey == nil {
		o.Config.DeviceKey = web.DeviceKey(secretKey)
	}
	logs := &bytes.Buffer{}
	logOut := &lockedWriter{w: logs}
	log := slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var replica *store.Replica
	var replicaProxy *DBProxy
	var standbyURL string
	if o.Config.ReplicaMaxLag > 0 {
		replica, replicaProxy, standbyURL = startReplica(t, db, dbURL, o.Config.ReplicaMaxLag, log)
	}
	// Passwords are hashed at the least cost the store accepts: at the
	// service's, the web suite took a third longer under -race.
	st, err := store.New(db, store.Options{Now: o.Now, SecretKey: secretKey, Charges: store.Charges{
		Receiver: pix.Receiver{Key: sandboxtest.Chave, City: "SAO PAULO"}, BaseURL: url,
	}, Replica: replica, PasswordHashing: store.MinimumPasswordHashing()})
	require.NoError(t, err)

	// Test receivers listen on loopback, which only the dev flag allows.
	o.Config.AllowPrivateNetworks = !o.privateNetworksOff
	o.Dispatcher.AllowPrivateNetworks = !o.privateNetworksOff
	o.Dispatcher.Now = o.Now
	o.Dispatcher.DatabaseURL = dbURL
	meters := metrics.New(db.DB, web.QueueReader(st))
	o.Dispatcher.Metrics = meters
	disp := dispatcher.New(o.Dispatcher, st, log)
	if o.RunDispatcher {
		disp.Start(context.Background())
		t.Cleanup(disp.Stop)
	}
	if o.mail {
		startMailer(t, st, log)
	}
	usage := web.NewKeyUsage(st, log, 100*time.Millisecond)
	usage.Start()
	app := web.New(o.Config, web.Deps{Store: st, Log: log, AccessLog: logOut, Redis: o.Redis, Tester: disp, Metrics: meters, Tracer: o.tracer, KeyUsage: usage})
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(5 * time.Second); usage.Stop() })

	s := &Server{t: t, URL: url, DB: db, DBURL: dbURL, SecretKey: secretKey, Store: st, Logs: logs, logOut: logOut, opts: o, Dispatcher: disp,
		Reports: reports.New(reports.Config{Now: o.Now}, st, log),
		Client:  client, App: app, DBProxy: proxy, Metrics: meters, Replica: replica, ReplicaProxy: replicaProxy, StandbyURL: standbyURL}
	if sandbox != nil {
		s.PSP = s.startPSP(sandbox, log)
	}
	s.Account, s.TestKey, s.LiveKey = s.NewAccount("Loja Teste", "owner@example.com")
	return s
}

// NewAccount creates another account with a test and a live key.
func (s *Server) NewAccount(name, email string) (*store.Account, string, string) {
	s.t.Helper()
	ctx := context.Background()
	acct, err := s.Store.CreateAccount(ctx, store.NewAccount{Name: name, Email: email, FeeBPS: store.DefaultFeeBPS})
	require.NoError(s.t, err)
	_, testKey, err := s.Store.CreateAPIKey(ctx, acct.ID, false, store.NewAPIKey{Name: "Teste"})
	require.NoError(s.t, err)
	_, liveKey, err := s.Store.CreateAPIKey(ctx, acct.ID, true, store.NewAPIKey{Name: "Produção"})
	require.NoError(s.t, err)
	return acct, testKey, liveKey
}

// Response is a finished exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body: %s", r.Body)
	return m
}

// ErrorCode returns error.code of an error body.
func (r *Response) ErrorCode(t testing.TB) string {
	t.Helper()
	e, ok := r.JSON(t)["error"].(map[string]any)
	require.True(t, ok, "not an error body: %s", r.Body)
	code, _ := e["code"].(string)
	return code
}

// ErrorParam returns error.param of an error body ("" for null).
func (r *Response) ErrorParam(t testing.TB) string {
	t.Helper()
	e := r.JSON(t)["error"].(map[string]any)
	p, _ := e["param"].(string)
	return p
}

// Request is what a test sends.
type Request struct {
	Method string
	Path   string
	// Body is sent as is when it is []byte or string, else JSON-encoded.
	Body any
	// Key is sent as a Bearer token when set.
	Key     string
	Headers map[string]string
}

// Do sends req, checks the response against the OpenAPI document and
// returns it.
func (s *Server) Do(req Request) *Response {
	s.t.Helper()
	resp := s.DoRaw(req)
	ValidateResponse(s.t, req.Method, req.Path, resp)
	return resp
}

// DoRaw sends req without checking the response against the document.
func (s *Server) DoRaw(req Request) *Response {
	s.t.Helper()
	var body io.Reader
	switch b := req.Body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	case string:
		body = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		require.NoError(s.t, err)
		body = bytes.NewReader(buf)
	}
	hr, err := http.NewRequest(req.Method, s.URL+req.Path, body)
	require.NoError(s.t, err)
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Key != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Key)
	}
	for k, v := range req.Headers {
		if v == "" {
			hr.Header.Del(k)
			continue
		}
		hr.Header.Set(k, v)
	}
	res, err := s.Client.Do(hr)
	require.NoError(s.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(s.t, err)
	return &Response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// CreatePayment creates a payment with the test key and returns its body.
func (s *Server) CreatePayment(body any) map[string]any {
	s.t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: body})
	require.Equal(s.t, http.StatusCreated, r.Status, "body: %s", r.Body)
	return r.JSON(s.t)
}

// Sibling starts a second application instance on the same database and
// Redis, like a second replica behind a load balancer.
func (s *Server) Sibling(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cfg := s.opts.Config
	cfg.BaseURL = "http://" + ln.Addr().String()
	app := web.New(cfg, web.Deps{Store: s.Store, Log: slog.New(slog.DiscardHandler), Redis: s.opts.Redis, Tester: s.Dispatcher})
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(5 * time.Second) })
	sib := *s
	sib.URL = cfg.BaseURL
	return &sib
}

func randomKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// Fund pays a fresh payment of amount cents (fee 0.99%) with key and
// returns its id.
func (s *Server) Fund(key string, amount int64) string {
	s.t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/api/v1/payments", Key: key, Body: map[string]any{"amount_cents": amount}})
	require.Equal(s.t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(s.t)["id"].(string)
	r = s.Do(Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: key})
	require.Equal(s.t, http.StatusOK, r.Status, "%s", r.Body)
	return id
}

// EventTypes lists the types of an object's events in the order they happened.
func (s *Server) EventTypes(objectID string) []string {
	s.t.Helper()
	var types []string
	err := s.DB.NewRaw("SELECT type FROM events WHERE object_id = ? ORDER BY created_at, id", objectID).Scan(context.Background(), &types)
	require.NoError(s.t, err)
	return types
}

// EventObject is data.object of the newest event of type typ about
// objectID, as GET /api/v1/events/{id} serves it with key.
func (s *Server) EventObject(key, objectID, typ string) map[string]any {
	s.t.Helper()
	var id string
	err := s.DB.NewRaw("SELECT id FROM events WHERE object_id = ? AND type = ? ORDER BY created_at DESC, id DESC LIMIT 1", objectID, typ).
		Scan(context.Background(), &id)
	require.NoError(s.t, err, "a %s event about %s", typ, objectID)
	r := s.Do(Request{Method: "GET", Path: "/api/v1/events/" + id, Key: key})
	require.Equal(s.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(s.t)["data"].(map[string]any)["object"].(map[string]any)
}

// MetricValue reads one sample of what the service exports on /metrics
// (its registry, read in-process: /metrics itself may refuse the test).
func (s *Server) MetricValue(name string) float64 {
	s.t.Helper()
	rec := httptest.NewRecorder()
	s.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for line := range strings.Lines(rec.Body.String()) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(s.t, err)
			return f
		}
	}
	return 0
}
