package web

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/metrics"
)

// Invalid API keys (unknown, malformed or revoked) allowed from one address
// per InvalidKeyWindow; past them the address is refused 429 until the
// window ends, without a lookup, whatever key it sends.
const (
	InvalidKeyLimit  = 20
	InvalidKeyWindow = time.Minute
)

// invalidKeyThrottle counts invalid API keys per client address (in Redis
// when configured, so every instance shares the count) and remembers, in
// this process, the addresses over the limit until their window ends.
type invalidKeyThrottle struct {
	counter rateCounter
	metrics *metrics.Metrics
	log     *slog.Logger

	mu      sync.Mutex
	blocked map[string]time.Time // address -> end of its window
	// blockedUntil is when the last block ends (Unix ns): past it every
	// request skips the lock, which is nearly always.
	blockedUntil atomic.Int64
}

func newInvalidKeyThrottle(counter rateCounter, m *metrics.Metrics, log *slog.Logger) *invalidKeyThrottle {
	return &invalidKeyThrottle{counter: counter, metrics: m, log: log, blocked: map[string]time.Time{}}
}

// refusing answers 429 when ip is over the limit in this window.
func (th *invalidKeyThrottle) refusing(c *fiber.Ctx, ip string) error {
	if time.Now().UnixNano() >= th.blockedUntil.Load() {
		return nil
	}
	th.mu.Lock()
	until, ok := th.blocked[ip]
	th.mu.Unlock()
	if ok && !time.Now().Before(until) {
		ok = false
	}
	if !ok {
		return nil
	}
	th.metrics.Refused(metrics.LimitInvalidAPIKey)
	return th.refusal(c, until)
}

// failed counts an invalid key from ip and returns err, or the 429 that
// replaces it once the address is over the limit. The first refusal of a
// window is logged as one warning; the others are counted only.
func (th *invalidKeyThrottle) failed(c *fiber.Ctx, ip string, err error) error {
	ctx := c.UserContext()
	now := time.Now()
	window := now.Truncate(InvalidKeyWindow)
	n, cerr := th.counter.hit(ctx, "badkey:"+ip, window, InvalidKeyWindow)
	if cerr != nil || n <= InvalidKeyLimit {
		return err // a counter outage must not take the API down with it
	}
	until := window.Add(InvalidKeyWindow)
	th.mu.Lock()
	if now.UnixNano() >= th.blockedUntil.Load() || len(th.blocked) >= 100_000 {
		th.blocked = map[string]time.Time{} // every earlier block has ended
	}
	th.blocked[ip] = until
	th.blockedUntil.Store(max(th.blockedUntil.Load(), until.UnixNano()))
	th.mu.Unlock()
	th.metrics.Refused(metrics.LimitInvalidAPIKey)
	if n == InvalidKeyLimit+1 {
		th.log.WarnContext(ctx, "invalid API keys throttled for this address until the window ends",
			"client_ip", ip, "invalid_keys", n, "until", until.UTC().Format(time.RFC3339))
	}
	return th.refusal(c, until)
}

func (th *invalidKeyThrottle) refusal(c *fiber.Ctx, until time.Time) error {
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(max(int(time.Until(until).Seconds()+0.999), 1)))
	return &reply.Error{Status: http.StatusTooManyRequests, Type: reply.TypeRateLimit, Code: "too_many_invalid_keys",
		Message: "Too many invalid API keys from this address: retry after the Retry-After delay with a valid key."}
}
