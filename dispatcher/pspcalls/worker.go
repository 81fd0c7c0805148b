// Package pspcalls sends the service's calls to its payment service provider:
// the outbound queue (psp_calls) written in the transactions of the state
// changes that need them, worked off under leases with retries, each
// idempotent at the PSP by the service's own ids (txid, devolução id,
// idEnvio); and the reconciler, which walks the PSP's received Pix so that a
// lost callback delays a credit, never loses it.
package pspcalls

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"payments/dispatcher/service"
	"payments/metrics"
	"payments/pix/apipix"
	"payments/store"
	"payments/store/ids"
)

// Config tunes the worker. Zero values take the defaults noted.
type Config struct {
	// Key is the platform's PIX key at the PSP (PIX_KEY): charges are paid
	// into it and payouts leave from it.
	Key string
	// Account is the platform's account at the PSP (PSP_ACCOUNT_*), which
	// recurring charges pay into.
	Account apipix.CobRRecebedor
	// Workers is how many calls run at once (8).
	Workers int
	// Lease is how long a claim holds a call (60 s); it outlasts a call's timeout.
	Lease time.Duration
	// PollInterval is the backstop when no NOTIFY arrives (1 s).
	PollInterval time.Duration
	// ReconcileInterval is how often the reconciler walks the PSP's
	// received Pix (1 min), and ReconcileOverlap how far back of where it
	// stopped each walk starts again (10 min), for Pix the PSP books late.
	ReconcileInterval, ReconcileOverlap time.Duration
	// RecheckInterval is how long a live recurrence goes unread before the
	// reconciler reads it again (1 h): the payer may cancel it in their
	// bank and the callback be lost.
	RecheckInterval time.Duration
	// DatabaseURL, when set, is LISTENed on for wake-ups.
	DatabaseURL string
	Now         func() time.Time
	// Metrics counts calls by kind and outcome (nil: none).
	Metrics *metrics.Metrics
}

func (c *Config) defaults() {
	if c.Workers <= 0 {
		c.Workers = 8
	}
	if c.Lease <= 0 {
		c.Lease = 60 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.ReconcileInterval <= 0 {
		c.ReconcileInterval = time.Minute
	}
	if c.ReconcileOverlap <= 0 {
		c.ReconcileOverlap = 10 * time.Minute
	}
	if c.RecheckInterval <= 0 {
		c.RecheckInterval = time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Worker sends the queued calls. Several may run, in one process or many:
// claims never overlap.
type Worker struct {
	cfg    Config
	store  *store.Store
	client *apipix.Client
	log    *slog.Logger
	slots  chan struct{}
	wake   chan struct{}
	wg     sync.WaitGroup
	svc    service.Service
}

// Start sends calls and reconciles in the background until Stop.
func (w *Worker) Start(ctx context.Context) { w.svc.Start(ctx, w.Run) }

// Stop stops claiming, waits for the calls in flight, and returns once
// every goroutine the worker started has ended.
func (w *Worker) Stop() { w.svc.Stop() }

// New returns a worker; Start (or Run) starts it.
func New(cfg Config, st *store.Store, client *apipix.Client, log *slog.Logger) *Worker {
	cfg.defaults()
	return &Worker{cfg: cfg, store: st, client: client, log: log,
		slots: make(chan struct{}, cfg.Workers), wake: make(chan struct{}, 1)}
}

// Run sends calls and reconciles until ctx is canceled, then waits for the
// calls in flight (each bounded by the client's timeout).
func (w *Worker) Run(ctx context.Context) {
	// What the worker writes is the PSP's answer: recorded as the PSP's.
	ctx = store.WithActor(ctx, store.ActorPSP)
	var background sync.WaitGroup
	defer background.Wait()
	if w.cfg.DatabaseURL != "" {
		background.Go(func() { w.listen(ctx) })
	}
	background.Go(func() { w.reconcileEvery(ctx) })
	ticker := time.NewTicker(w.cfg.PollInterval)
	defer ticker.Stop()
	for {
		w.fill(ctx)
		select {
		case <-ctx.Done():
			w.wg.Wait()
			return
		case <-w.wake:
		case <-ticker.C:
		}
	}
}

func (w *Worker) fill(ctx context.Context) {
	for ctx.Err() == nil {
		free := cap(w.slots) - len(w.slots)
		if free == 0 {
			return
		}
		calls, err := w.claim(ctx, free)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("psp: claim", "error", err.Error())
			}
			return
		}
		for i := range calls {
			w.slots <- struct{}{}
			w.wg.Add(1)
			go func(c *store.PSPCall) {
				defer w.wg.Done()
				// A call in flight finishes even while the process stops:
				// its lease would otherwise hold it for a minute.
				w.send(context.WithoutCancel(ctx), c)
				<-w.slots
				w.signal()
			}(&calls[i])
		}
		if len(calls) < free {
			return
		}
	}
}

// claim leases due calls under a token of its own: if the claim's answer is
// lost, what it may have leased is released by that token rather than held
// until the lease runs out.
func (w *Worker) claim(ctx context.Context, limit int) ([]store.PSPCall, error) {
	token := ids.New(ids.PrefixLease)
	calls, err := w.store.ClaimPSPCalls(ctx, w.cfg.Now(), limit, w.cfg.Lease, token)
	if err != nil {
		w.wg.Go(func() { w.release(token) })
	}
	return calls, err
}

// release gives back the leases of token, retrying while the database is
// out of reach.
func (w *Worker) release(token string) {
	err := service.UntilAnswered(time.Now().Add(w.cfg.Lease), func(ctx context.Context) error {
		n, err := w.store.ReleasePSPLeases(ctx, token)
		if n > 0 {
			w.log.Warn("psp: released leases whose claim was not answered", "count", n)
			w.signal()
		}
		return err
	})
	if err != nil {
		w.log.Error("psp: release leases", "error", err.Error())
	}
}

func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// listen turns NOTIFYs into wake-ups, reconnecting after failures; the
// poll covers the gaps.
func (w *Worker) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, w.cfg.DatabaseURL)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+store.PSPCallsChannel)
			for err == nil {
				_, err = conn.WaitForNotification(ctx)
				if err == nil {
					w.signal()
				}
			}
			_ = conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		w.log.Warn("psp: listen connection lost; retrying", "error", err.Error())
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// retrySchedule is the wait before the next attempt after the attempt-th
// failed (the last repeats): patient, since money must move and a PSP in
// trouble must not be hammered.
var retrySchedule = []time.Duration{
	500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour,
}

// waitedOnSchedule is for the calls someone waits on: a charge's or a
// subscription's registration (the integrator's request, then the payer),
// a received Pix's confirmation and a recurrence's (the payer, on the
// checkout page). It stays short for
// about a minute, then grows like retrySchedule.
var waitedOnSchedule = []time.Duration{
	250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second, 5 * time.Second,
	5 * time.Second, 10 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
	10 * time.Minute, 30 * time.Minute, time.Hour,
}

// retryDelay is the wait after the attempt-th failure of a call of kind,
// with up to 20% jitter so that calls failed together spread out.
func retryDelay(kind string, attempt int) time.Duration {
	schedule := retrySchedule
	switch kind {
	case store.CallCobCreate, store.CallPixConfirm, store.CallLoteCobVCreate, store.CallLoteCobVCheck, store.CallRecCreate, store.CallRecCheck,
		store.CallInfracaoCheck:
		schedule = waitedOnSchedule
	}
	base := schedule[min(max(attempt, 1), len(schedule))-1]
	return base + time.Duration(float64(base)*0.2*rand.Float64())
}

// result is what one attempt at a call came to.
type result struct {
	status   string // store.CallSucceeded, store.CallFailed, or store.CallPending to try again
	after    time.Duration
	err      error
	request  any
	response any
}

func done(request, response any) result {
	return result{status: store.CallSucceeded, request: request, response: response}
}

func refused(err error, request any) result {
	return result{status: store.CallFailed, err: err, request: request}
}

// again tries the call again after the retry schedule's wait (or after, when set).
func again(err error, request any, after time.Duration) result {
	return result{status: store.CallPending, err: err, request: request, after: after}
}

// send makes one attempt at c and records its outcome.
func (w *Worker) send(ctx context.Context, c *store.PSPCall) {
	began := time.Now()
	// The lease was taken just before this attempt; finishing after it ends
	// is pointless (the call may be another worker's by then).
	leaseEnd := began.Add(w.cfg.Lease)
	res := w.attempt(ctx, c)
	w.cfg.Metrics.PSPCall(c.Kind, res.status, time.Since(began))
	out := store.CallOutcome{Status: res.status}
	if res.status == store.CallPending {
		delay := res.after
		if delay == 0 {
			delay = retryDelay(c.Kind, c.Attempts)
		}
		out.NextAttemptAt = w.cfg.Now().Add(delay)
		// Wake up for it then rather than at the next poll: a charge's
		// registration is waited on, and 250 ms would become a second.
		time.AfterFunc(delay, w.signal)
	}
	if res.err != nil {
		out.Error = res.err.Error()
	}
	// What was sent and answered is kept for support; a value that will
	// not encode (none should) is said in the log, not dropped silently.
	var err error
	if res.request != nil {
		if out.Request, err = json.Marshal(res.request); err != nil {
			w.log.Error("psp: keep the call's request", "call_id", c.ID, "error", err.Error())
		}
	}
	if res.response != nil {
		if out.Response, err = json.Marshal(res.response); err != nil {
			w.log.Error("psp: keep the call's answer", "call_id", c.ID, "error", err.Error())
		}
	}
	token := ""
	if c.LeaseToken != nil {
		token = *c.LeaseToken
	}
	var held bool
	// Retried while the database is out of reach or aborts it, so that a
	// restart or a deadlock does not leave the call leased (a charge's
	// registration is waited on).
	err = service.UntilAnswered(leaseEnd, func(ctx context.Context) (err error) {
		held, err = w.store.FinishPSPCall(ctx, c.ID, token, out)
		return err
	})
	switch {
	case err != nil:
		// The lease runs out and the call is made again: every call is
		// idempotent at the PSP, and every outcome applied here too.
		w.log.Error("psp: record outcome", "call_id", c.ID, "kind", c.Kind, "error", err.Error())
	case !held:
		w.log.Warn("psp: lease lost during call", "call_id", c.ID, "kind", c.Kind)
	case res.status == store.CallFailed:
		w.log.Warn("psp: call refused", "call_id", c.ID, "kind", c.Kind, "object_id", c.ObjectID, "error", out.Error)
	case res.status == store.CallPending && res.err != nil:
		w.log.Debug("psp: call failed; trying again", "call_id", c.ID, "kind", c.Kind, "attempt", c.Attempts,
			"next_attempt_at", out.NextAttemptAt, "error", out.Error)
	}
}

// attempt dispatches c to its kind's step (steps.go).
func (w *Worker) attempt(ctx context.Context, c *store.PSPCall) result {
	switch c.Kind {
	case store.CallCobCreate:
		return w.createCharge(ctx, c)
	case store.CallCobRemove:
		return w.removeCharge(ctx, c)
	case store.CallPixConfirm:
		return w.confirmPix(ctx, c)
	case store.CallDevolucaoCreate:
		return w.createDevolucao(ctx, c)
	case store.CallDevolucaoCheck:
		return w.checkDevolucao(ctx, c)
	case store.CallPayoutCreate:
		return w.createPayout(ctx, c)
	case store.CallPayoutCheck:
		return w.checkPayout(ctx, c)
	case store.CallTransferReturn:
		return w.returnTransfer(ctx, c)
	case store.CallLoteCobVCreate:
		return w.registerBatch(ctx, c)
	case store.CallLoteCobVCheck:
		return w.checkBatch(ctx, c)
	case store.CallRecCreate:
		return w.createRec(ctx, c)
	case store.CallRecCheck:
		return w.checkRec(ctx, c)
	case store.CallRecCancel:
		return w.cancelRec(ctx, c)
	case store.CallCobRCreate:
		return w.createCobR(ctx, c)
	case store.CallCobRCheck:
		return w.checkCobR(ctx, c)
	case store.CallCobRRetry:
		return w.retryCobR(ctx, c)
	case store.CallInfracaoCheck:
		return w.checkInfracao(ctx, c)
	case store.CallInfracaoDefesa:
		return w.sendDefesa(ctx, c)
	case store.CallMEDRequest:
		return w.requestMED(ctx, c)
	case store.CallMEDCheck:
		return w.checkMED(ctx, c)
	}
	return result{status: store.CallFailed, err: errUnknownKind}
}
