// Package dispatcher delivers queued events to webhooks: it claims due
// deliveries, has the v1/v2 envelope built (envelope.Envelope), signs it, POSTs
// it through an SSRF-guarded client, and records the outcome with the retry
// policy.
package dispatcher

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"payments/dispatcher/envelope"
	"payments/dispatcher/service"
	"payments/dispatcher/signature"
	"payments/metrics"
	"payments/store"
	"payments/store/ids"
	"payments/tracing"
	"payments/versions"
)

// Config tunes the dispatcher. Zero values take the defaults noted.
type Config struct {
	// Workers is how many attempts run at once (32).
	Workers int
	// PerWebhook caps one webhook's attempts in flight (8).
	PerWebhook int
	// Run is how many of its webhook's next deliveries a worker holds at
	// most while it attempts one (16; see work).
	Run int
	// Reserve is how many workers an account alone leaves free for the
	// next account's deliveries (Workers/8, at least 1, at most all but
	// one); SlowLane, how many the slow lane's webhooks hold together
	// (Workers/8, at least 1). See store.ClaimParams.
	Reserve  int
	SlowLane int
	// Lease is how long a claim holds a delivery (60s); it must outlast AttemptTimeout.
	Lease time.Duration
	// PollInterval is the backstop when no NOTIFY arrives (1s).
	PollInterval time.Duration
	// DrainTimeout bounds how long shutdown waits for attempts in flight (20s).
	DrainTimeout time.Duration
	// AllowPrivateNetworks lifts the address guard and allows http (dev/test only).
	AllowPrivateNetworks bool
	// Proxy, when set, is the HTTP CONNECT proxy deliveries leave through
	// (WEBHOOK_PROXY_URL); ClientCertificate, the platform's own client
	// certificate for receivers that ask for one (see SenderConfig).
	Proxy             *url.URL
	ClientCertificate *tls.Certificate
	// DatabaseURL, when set, is LISTENed on for wake-ups.
	DatabaseURL string
	// Now and Jitter are injectable for tests; Jitter returns [0,1).
	Now    func() time.Time
	Jitter func() float64
	// Metrics counts attempts by outcome (nil: none).
	Metrics *metrics.Metrics
	// Tracer, when set, makes a span of each attempt in the trace of the
	// request that made its event (nil: no traces).
	Tracer trace.Tracer
}

func (c *Config) defaults() {
	if c.Workers <= 0 {
		c.Workers = 32
	}
	if c.PerWebhook <= 0 {
		c.PerWebhook = 8
	}
	if c.Run <= 0 {
		c.Run = 16
	}
	if c.Reserve <= 0 {
		c.Reserve = max(c.Workers/8, 1)
	}
	// An account alone always has a worker: with one, it keeps it (a
	// reserve of one worker of one left none, and nothing was delivered).
	c.Reserve = min(c.Reserve, c.Workers-1)
	if c.SlowLane <= 0 {
		c.SlowLane = max(c.Workers/8, 1)
	}
	if c.Lease <= 0 {
		c.Lease = 60 * time.Second
	}
	c.Lease = max(c.Lease, AttemptTimeout+5*time.Second)
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 20 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Jitter == nil {
		c.Jitter = rand.Float64
	}
}

// Dispatcher delivers queued deliveries. It is safe to run several, in one
// process or many: claims never overlap.
type Dispatcher struct {
	// profiles holds each webhook's parsed TLS settings (TLSProfile), by
	// webhook id, for the version (updated_at) they were read at.
	profiles sync.Map
	cfg      Config
	store    *store.Store
	sender   *Sender
	log      *slog.Logger
	slots    chan struct{}
	wake     chan struct{}
	// behind says whether due deliveries may wait that the last claim left
	// (store.Claimed.More), or that no claim looked for (every worker was
	// busy): a worker freed then wakes the dispatcher to claim, and only
	// then. freed counts the workers freed, so that a claim that left work
	// behind while one was freed claims again.
	behind atomic.Bool
	freed  atomic.Int64
	// owner begins the token of every lease this dispatcher takes: its
	// claims count its own leases by it (the shares are of its workers).
	owner string
	lanes *lanes
	// failures counts, by webhook id, the attempts this process saw fail
	// (*atomic.Int64): a worker holding a run of a webhook's deliveries
	// gives them back when another worker's attempt failed (see work).
	failures sync.Map
	// runs numbers the runs workers ask for (each try of a record its
	// own), for their lease tokens.
	runs atomic.Int64
	// frontiers holds, by webhook id, how far into its queue this process
	// has leased (*frontier): where a worker's next run starts looking.
	frontiers sync.Map
	wg        sync.WaitGroup
	svc       service.Service
}

// Start delivers in the background until Stop.
func (d *Dispatcher) Start(ctx context.Context) { d.svc.Start(ctx, d.Run) }

// Stop stops claiming, waits up to DrainTimeout for the attempts in flight
// (then abandons them to their leases), and returns once every goroutine
// the dispatcher started has ended.
func (d *Dispatcher) Stop() { d.svc.Stop() }

// New returns a dispatcher; Start (or Run) starts it.
func New(cfg Config, st *store.Store, log *slog.Logger) *Dispatcher {
	cfg.defaults()
	return &Dispatcher{
		cfg: cfg, store: st, log: log,
		sender: NewSender(SenderConfig{AllowPrivate: cfg.AllowPrivateNetworks, Proxy: cfg.Proxy,
			ClientCertificate: cfg.ClientCertificate}),
		slots: make(chan struct{}, cfg.Workers),
		wake:  make(chan struct{}, 1),
		owner: ids.New(ids.PrefixLease) + ":",
		lanes: newLanes(),
	}
}

// leaseToken is a new token for leases this dispatcher takes.
func (d *Dispatcher) leaseToken() string { return d.owner + ids.New(ids.PrefixLease) }

// Run delivers until ctx is canceled, then stops claiming and waits up to
// DrainTimeout for attempts in flight before abandoning them to their leases.
func (d *Dispatcher) Run(ctx context.Context) {
	attemptCtx, cancelAttempts := context.WithCancel(context.Background())
	defer cancelAttempts()
	var listener sync.WaitGroup
	defer listener.Wait()
	if d.cfg.DatabaseURL != "" {
		listener.Go(func() { d.listen(ctx) })
	}
	ticker := time.NewTicker(d.cfg.PollInterval)
	defer ticker.Stop()
	woken := time.Now()
	for {
		d.fill(ctx, attemptCtx, woken)
		select {
		case <-ctx.Done():
			d.drain(cancelAttempts)
			return
		case <-d.wake:
		case <-ticker.C:
		}
		woken = time.Now()
	}
}

func (d *Dispatcher) drain(cancelAttempts context.CancelFunc) {
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d.cfg.DrainTimeout):
		d.log.Warn("dispatcher: drain timeout; abandoning attempts in flight to their leases")
		cancelAttempts()
		<-done
	}
}

// fill claims as many due deliveries as there are free workers, repeating
// while claims come back full.
func (d *Dispatcher) fill(ctx, attemptCtx context.Context, woken time.Time) {
	for ctx.Err() == nil {
		free := cap(d.slots) - len(d.slots)
		if free == 0 {
			// What is due waits for a worker. Said before looking again: a
			// worker freed after the look sees it and wakes this loop; one
			// freed between the first look and it saw nothing to wake for,
			// and the look finds its slot (two quick workers freed in that
			// window left a third delivery to the next poll, a minute in
			// TestAFreedWorkerClaimsOnlyWhenAClaimLeftWorkBehind).
			d.behind.Store(true)
			if cap(d.slots)-len(d.slots) == 0 {
				return
			}
			continue
		}
		freed := d.freed.Load()
		c, err := d.claim(ctx, free, woken)
		if err != nil {
			if ctx.Err() == nil {
				d.log.Error("dispatcher: claim", "error", err.Error())
			}
			d.behind.Store(true)
			return
		}
		claimed := c.Deliveries
		for i := range claimed {
			d.frontier(claimed[i].WebhookID).reach(&claimed[i])
			d.slots <- struct{}{}
			d.wg.Add(1)
			go func(dl *store.Delivery) {
				defer d.wg.Done()
				d.work(attemptCtx, ctx, dl)
				<-d.slots
				d.freed.Add(1)
				if d.behind.Load() {
					d.signal() // a free worker may take work a cap held back
				}
			}(&claimed[i])
		}
		if len(claimed) < free {
			// Said before looking at the workers freed, for the same reason.
			d.behind.Store(c.More)
			if c.More && d.freed.Load() != freed {
				continue // a worker freed meanwhile saw nothing to wake for
			}
			return
		}
	}
}

// claim leases due deliveries under a token of its own: if the claim's
// answer is lost, what it may have leased is released by that token.
func (d *Dispatcher) claim(ctx context.Context, limit int, woken time.Time) (store.Claimed, error) {
	token := d.leaseToken()
	claimed, err := d.store.Claim(ctx, store.ClaimParams{
		Now: d.cfg.Now(), Limit: limit, Lease: d.cfg.Lease, PerWebhook: d.cfg.PerWebhook, Token: token, WokenAt: woken,
		Owner: d.owner, Workers: d.cfg.Workers, Reserve: d.cfg.Reserve, SlowLane: d.cfg.SlowLane,
	})
	if err != nil {
		d.wg.Go(func() { d.release(token) })
	}
	return claimed, err
}

// release gives back the leases of token, retrying while the database is
// out of reach (a dispatcher that lost its connection reclaims within
// seconds of it answering again, not when the leases run out).
func (d *Dispatcher) release(token string) {
	err := service.UntilAnswered(time.Now().Add(d.cfg.Lease), func(ctx context.Context) error {
		n, err := d.store.ReleaseLeases(ctx, token)
		if n > 0 {
			d.log.Warn("dispatcher: released leases whose claim was not answered", "count", n)
			d.signal()
		}
		return err
	})
	if err != nil {
		d.log.Error("dispatcher: release leases", "error", err.Error())
	}
}

// RunOnce claims every due delivery (up to limit), attempts them all and
// returns how many it attempted. Tests drive the dispatcher with it.
func (d *Dispatcher) RunOnce(ctx context.Context, limit int) int {
	c, err := d.claim(ctx, limit, time.Now())
	if err != nil {
		d.log.Error("dispatcher: claim", "error", err.Error())
		return 0
	}
	claimed := c.Deliveries
	var wg sync.WaitGroup
	for i := range claimed {
		wg.Go(func() {
			if success, _ := d.attemptOne(ctx, &claimed[i]); success != nil {
				d.recordSuccess(*success)
			}
		})
	}
	wg.Wait()
	return len(claimed)
}

func (d *Dispatcher) signal() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// listen turns NOTIFYs into wake-ups on a dedicated connection, reconnecting
// after failures; the poll ticker covers the gaps.
func (d *Dispatcher) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, d.cfg.DatabaseURL)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+store.DeliveriesChannel)
			if err == nil {
				// What was queued before this LISTEN (while the dispatcher
				// started, or this connection was lost) notified no one:
				// a claim looks for it now, not at the next poll.
				d.signal()
			}
			for err == nil {
				_, err = conn.WaitForNotification(ctx)
				if err == nil {
					d.signal()
				}
			}
			_ = conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		d.log.Warn("dispatcher: listen connection lost; retrying", "error", err.Error())
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// attemptOne makes one attempt of dl. A success is returned to be recorded
// (recordSuccess), with whether its webhook stays in the fast lane; anything
// else is recorded here, before it returns nil.
func (d *Dispatcher) attemptOne(ctx context.Context, dl *store.Delivery) (success *store.Success, fast bool) {
	now := d.cfg.Now()
	var span trace.Span // nil when traces are off
	if d.cfg.Tracer != nil {
		ctx, span = d.startSpan(ctx, dl)
		defer span.End()
	} else if dl.Webhook.ForwardTrace {
		// No span of its own: the receiver continues the request's.
		ctx = eventTrace(ctx, dl)
	}
	// The lease was taken before this attempt; finishing after it ends is
	// pointless (another dispatcher may have the delivery by then).
	leaseEnd := time.Now().Add(d.cfg.Lease)
	attempt := d.attempt(ctx, dl.Webhook, dl.Event, now)
	if span != nil {
		span.SetAttributes(attribute.Int("http.response.status_code", attempt.result.StatusCode))
		if !attempt.result.Success {
			span.SetStatus(codes.Error, attempt.result.ErrClass)
		}
	}
	attempt.DeliveryID = &dl.ID
	attempt.Attempt = dl.Attempts
	slow := d.keepLane(dl.Webhook, attempt.result.Duration)
	token := ""
	if dl.LeaseToken != nil {
		token = *dl.LeaseToken
	}
	if attempt.result.Success {
		d.observe(dl, metrics.OutcomeSucceeded, attempt.result.Duration, now)
		return &store.Success{Delivery: dl, Token: token, Attempt: &attempt.DeliveryAttempt}, !slow
	}
	d.failed(dl.WebhookID).Add(1)
	out := d.outcome(dl, attempt.result, d.cfg.Now())
	switch {
	case out.DisableReason != "":
		d.observe(dl, metrics.OutcomeDisabled, attempt.result.Duration, now)
	case out.Status == store.DeliveryFailed:
		d.observe(dl, metrics.OutcomeFailed, attempt.result.Duration, now)
	default:
		d.observe(dl, metrics.OutcomeRetrying, attempt.result.Duration, now)
	}
	var held bool
	err := service.UntilAnswered(leaseEnd, func(ctx context.Context) (err error) {
		held, err = d.store.FinishFailure(ctx, dl, token, out, &attempt.DeliveryAttempt)
		return err
	})
	d.afterFinish(dl, attempt.ID, held, err, out.DisableReason)
	return nil, false
}

// recordSuccess records a success with whatever others are being recorded
// at the same time (store.FinishSuccess), and returns the deliveries its
// Next asked for, leased under the slot of the success's own lease.
func (d *Dispatcher) recordSuccess(success store.Success) []*store.Delivery {
	dl := success.Delivery
	leaseEnd := time.Now().Add(d.cfg.Lease)
	var f store.Finished
	slot := slotOf(dl)
	service.UntilAnswered(leaseEnd, func(ctx context.Context) error {
		success.Again = f.Err != nil // the failed try may have committed
		if success.Next != nil {
			// Each try leases under a token of its own: a failed try's
			// leases are released by its token, in the background, and
			// must not take the next try's with them (they would be sent
			// by this worker and claimed again by others: the fault suite
			// saw such a delivery twice, sent as PostgreSQL came back).
			success.Next.Now, success.Next.Token = d.cfg.Now(), fmt.Sprintf("%s/%d", slot, d.runs.Add(1))
		}
		f = d.store.FinishSuccess(ctx, success)
		if f.Err != nil && success.Next != nil {
			next := success.Next.Token // the run's leases may have been taken
			d.wg.Go(func() { d.release(next) })
		}
		return f.Err
	})
	d.afterFinish(dl, success.Attempt.ID, f.Held, f.Err, "")
	return f.Next
}

// failed is the count of failed attempts this process saw of a webhook.
func (d *Dispatcher) failed(webhookID string) *atomic.Int64 {
	n, _ := d.failures.LoadOrStore(webhookID, new(atomic.Int64))
	return n.(*atomic.Int64)
}

// startSpan opens the attempt's span, a child of the span of the request
// whose state change made the event (through the outbox's traceparent).
func (d *Dispatcher) startSpan(ctx context.Context, dl *store.Delivery) (context.Context, trace.Span) {
	ctx = eventTrace(ctx, dl)
	attrs := []attribute.KeyValue{attribute.String("webhook.id", dl.WebhookID), attribute.String("delivery.id", dl.ID),
		attribute.Int("delivery.attempt", dl.Attempts)}
	if dl.Event != nil {
		attrs = append(attrs, attribute.String("event.id", dl.Event.ID), attribute.String("event.type", dl.Event.Type))
	}
	return d.cfg.Tracer.Start(ctx, "webhook delivery", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// eventTrace is ctx carrying the span of the request whose state change
// made dl's event (through the outbox's traceparent and tracestate).
func eventTrace(ctx context.Context, dl *store.Delivery) context.Context {
	if dl.Event == nil || dl.Event.TraceParent == nil {
		return ctx
	}
	state := ""
	if dl.Event.TraceState != nil {
		state = *dl.Event.TraceState
	}
	return tracing.FromTraceParent(ctx, *dl.Event.TraceParent, state)
}

// observe counts an attempt, and the lag of a first attempt since its event.
func (d *Dispatcher) observe(dl *store.Delivery, outcome string, took time.Duration, sent time.Time) {
	var lag time.Duration
	if dl.Attempts == 1 && dl.Event != nil {
		lag = sent.Sub(dl.Event.CreatedAt)
	}
	d.cfg.Metrics.Attempt(outcome, took, lag)
}

// afterFinish logs what went wrong when an attempt's outcome was recorded.
// A finish that found no lease to end either lost it (it ran out, and
// another claim may hold the delivery) or found the delivery deleted with
// its webhook: that attempt is deleted here, as its webhook's others were,
// off the path of every finish that held its lease.
func (d *Dispatcher) afterFinish(dl *store.Delivery, attemptID string, held bool, err error, disableReason string) {
	switch {
	case err != nil:
		// The lease runs out and the delivery is attempted again: at-least-once.
		d.log.Error("dispatcher: record outcome", "delivery_id", dl.ID, "error", err.Error())
	case !held:
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		gone, err := d.store.ForgetAttemptOfDeletedDelivery(ctx, attemptID, dl.ID)
		switch {
		case err != nil:
			d.log.Warn("dispatcher: lease lost during attempt", "delivery_id", dl.ID, "error", err.Error())
		case gone:
			d.log.Info("dispatcher: webhook deleted during attempt; its attempt deleted too",
				"delivery_id", dl.ID, "webhook_id", dl.WebhookID)
		default:
			d.log.Warn("dispatcher: lease lost during attempt", "delivery_id", dl.ID)
		}
	case disableReason != "":
		d.log.Warn("dispatcher: webhook disabled", "webhook_id", dl.WebhookID, "reason", disableReason)
	}
}

// outcome applies the retry policy to an attempt that did not succeed.
func (d *Dispatcher) outcome(dl *store.Delivery, res Result, now time.Time) store.DeliveryOutcome {
	out := store.DeliveryOutcome{
		NextAttemptAt: now, AutoDisableAfter: AutoDisableAfter, AutoDisableFailures: AutoDisableFailures,
	}
	if res.StatusCode != 0 {
		out.StatusCode = &res.StatusCode
	}
	msg := res.ErrClass
	if res.ErrMessage != "" {
		msg += ": " + res.ErrMessage
	}
	var retryAfter time.Duration
	if res.StatusCode == 429 || res.StatusCode == 503 {
		retryAfter = min(res.RetryAfter, maxRetryAfter)
	}
	if retryAfter > 0 {
		// The receiver asked for a pause: its other deliveries wait too.
		until := now.Add(retryAfter)
		out.PauseUntil = &until
		msg += fmt.Sprintf(" (%s %s)", RetryAfterNote, retryAfter)
	}
	out.Error = &msg
	if res.StatusCode == 410 {
		out.Status, out.DisableReason = store.DeliveryFailed, store.DisabledEndpointGone
		return out
	}
	delay, more := retryDelay(dl.Attempts, retryAfter, d.cfg.Jitter())
	if !more {
		out.Status = store.DeliveryFailed
		return out
	}
	out.Status, out.NextAttemptAt = store.DeliveryPending, now.Add(delay)
	return out
}

// sentBody is the body an attempt sent, as its record's text, without a
// copy: the body is built for this attempt alone (envelope.InVersion) and
// nothing writes to it once it is signed and sent. Copying it was a
// twentieth of what the dispatcher allocated (BENCHMARKS.md, "Encoded into
// a kept buffer").
func sentBody(body []byte) string {
	return unsafe.String(unsafe.SliceData(body), len(body))
}

// RetryAfterNote ends the error of an attempt answered with a Retry-After
// that was honoured, followed by the wait: "(Retry-After: 30s)".
const RetryAfterNote = "Retry-After:"

// madeAttempt is a recorded attempt with the raw result beside it.
type madeAttempt struct {
	store.DeliveryAttempt
	result Result
}

// attempt signs and sends event to w at now, and describes the attempt for the record.
func (d *Dispatcher) attempt(ctx context.Context, w *store.Webhook, e *store.Event, now time.Time) madeAttempt {
	a := madeAttempt{DeliveryAttempt: store.DeliveryAttempt{
		ID: ids.New(ids.PrefixAttempt), WebhookID: w.ID, EventID: e.ID, EventType: e.Type,
		RequestURL: w.URL, Attempt: 1, CreatedAt: now.UTC(),
	}}
	body, err := envelope.InVersion(w.APIVersion, w.PaymentsVersion, e, w.AccountID)
	var secrets []string
	if err == nil {
		secrets, err = d.store.SigningSecrets(w, now)
	}
	if err != nil {
		a.result = Result{ErrClass: "internal", ErrMessage: err.Error()}
		a.RequestHeaders, a.RequestBody = map[string]string{}, string(body)
		a.ErrorClass, a.ErrorMessage = strPtr(a.result.ErrClass), strPtr(a.result.ErrMessage)
		return a
	}
	headers := signature.Headers(signature.Request{EventID: e.ID, EventType: e.Type, AttemptID: a.ID, WebhookID: w.ID,
		APIVersion: w.APIVersion, Body: body, At: now, Secrets: secrets})
	if w.PaymentsVersion != "" {
		headers[versions.Header] = w.PaymentsVersion
	}
	if w.ForwardTrace {
		// The attempt's span: the receiver's trace goes on from the request
		// that made the event, through this attempt.
		maps.Copy(headers, tracing.Headers(ctx))
	}
	profile, err := d.tlsProfile(w)
	if err != nil {
		a.result = Result{ErrClass: "internal", ErrMessage: err.Error()}
	} else {
		a.result = d.sender.Send(ctx, w.URL, profile, headers, body)
	}
	a.RequestHeaders, a.RequestBody = headers, sentBody(body)
	if len(body) > MaxStoredRequestBody {
		// What was sent is signed and gone; the record keeps its start.
		a.RequestBody = strings.ToValidUTF8(string(body[:MaxStoredRequestBody]), "")
		headers[store.TruncatedBodyHeader] = strconv.Itoa(len(body))
	}
	a.DurationMS = int(a.result.Duration.Milliseconds())
	if a.result.StatusCode != 0 {
		a.ResponseStatus = &a.result.StatusCode
		a.ResponseHeaders = sanitizeHeaders(a.result.Header)
		a.ResponseBody = a.result.Body
		if a.result.BodyTruncated {
			a.ResponseHeaders[store.TruncatedBodyHeader] = []string{"more than " + strconv.Itoa(MaxResponseBody)}
		}
	}
	if a.result.ErrClass != "" {
		a.ErrorClass, a.ErrorMessage = strPtr(a.result.ErrClass), strPtr(a.result.ErrMessage)
	}
	return a
}

// TruncatedHeader is the entry that stands for the response headers not
// kept beyond MaxStoredResponseHeaders. Its name cannot be a real header's
// (HTTP field names have no spaces or parentheses).
const TruncatedHeader = "(truncated)"

// sanitizeHeaders keeps response headers storable as JSON text, and at most
// MaxStoredResponseHeaders bytes of them (names and values, in name order):
// a header that does not fit whole is cut, the rest left out, and
// TruncatedHeader says how much was.
func sanitizeHeaders(h map[string][]string) map[string][]string {
	// The size, and whether every name and value is stored as it is (valid
	// UTF-8, no NUL), in one pass.
	size, storable := 0, true
	for k, vs := range h {
		storable = storable && utf8.ValidString(k)
		for _, v := range vs {
			size += len(k) + len(v)
			storable = storable && utf8.ValidString(v) && strings.IndexByte(v, 0) < 0
		}
	}
	if size <= MaxStoredResponseHeaders {
		// Every answer but a rare one: all of it, in any order; the map
		// itself (the attempt's own) when nothing in it needs cleaning.
		if h != nil && storable {
			return h
		}
		out := make(map[string][]string, len(h))
		for k, vs := range h {
			clean := make([]string, len(vs))
			for i, v := range vs {
				clean[i] = cleanHeaderValue(v)
			}
			out[strings.ToValidUTF8(k, "")] = clean
		}
		return out
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	out := make(map[string][]string, len(h))
	room := MaxStoredResponseHeaders
	var leftHeaders, leftBytes int
	for _, k := range names {
		for _, v := range h[k] {
			if room <= len(k) {
				leftHeaders, leftBytes = leftHeaders+1, leftBytes+len(k)+len(v)
				continue
			}
			room -= len(k)
			if len(v) > room {
				leftBytes += len(v) - room
				v = strings.ToValidUTF8(v[:room], "")
			}
			room -= len(v)
			name := strings.ToValidUTF8(k, "")
			out[name] = append(out[name], cleanHeaderValue(v))
		}
	}
	if leftBytes > 0 {
		out[TruncatedHeader] = []string{fmt.Sprintf("%d headers and %d bytes not kept: the first %d KiB of headers are",
			leftHeaders, leftBytes, MaxStoredResponseHeaders>>10)}
	}
	return out
}

func cleanHeaderValue(v string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(v, "\uFFFD"), "\x00", "")
}

func strPtr(s string) *string { return &s }
