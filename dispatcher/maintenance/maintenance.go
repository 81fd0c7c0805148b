// Package maintenance runs the periodic maintenance the service needs besides
// serving requests: expiring overdue payments and pruning old idempotency
// keys, delivery attempts and events.
package maintenance

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"payments/dispatcher/service"
	"payments/store"
)

// Config sets how often each job runs.
type Config struct {
	ExpiryInterval time.Duration
	// PruneInterval is how often old idempotency keys and delivery attempts go.
	PruneInterval time.Duration
	// AttemptRetention is how long delivery attempts are kept.
	AttemptRetention time.Duration
	// EventRetention is how long events (and their deliveries) are kept:
	// what the Events API can list and a webhook can recover.
	EventRetention time.Duration
}

// batchSize bounds one transaction's work so a backlog never holds locks long.
const batchSize = 500

// Jobs runs every job on its interval between Start and Stop.
type Jobs struct {
	cfg   Config
	store *store.Store
	log   *slog.Logger
	svc   service.Service
}

// New returns the jobs; Start runs them.
func New(cfg Config, st *store.Store, log *slog.Logger) *Jobs {
	return &Jobs{cfg: cfg, store: st, log: log}
}

// Start runs every job in the background until Stop.
func (j *Jobs) Start(ctx context.Context) { j.svc.Start(ctx, j.Run) }

// Stop ends the jobs (a pass under way finishes its batch) and returns
// once they have.
func (j *Jobs) Stop() { j.svc.Stop() }

// Run runs every job until ctx is canceled.
func (j *Jobs) Run(ctx context.Context) {
	st, log, cfg := j.store, j.log, j.cfg
	var jobs sync.WaitGroup
	jobs.Go(func() {
		every(ctx, cfg.ExpiryInterval, func() {
			ExpireOverdue(ctx, st, log)
			MakeDueCycles(ctx, st, log)
		})
	})
	jobs.Go(func() {
		every(ctx, cfg.PruneInterval, func() {
			pruneIdempotencyKeys(ctx, st, log)
			PruneAttempts(ctx, st, cfg.AttemptRetention, log)
			PruneEvents(ctx, st, cfg.EventRetention, log)
		})
	})
	jobs.Wait()
}

func every(ctx context.Context, interval time.Duration, fn func()) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		fn()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ExpireOverdue expires every pending payment past its expires_at, in
// batches, each with its payment.expired event. It returns how many it moved.
func ExpireOverdue(ctx context.Context, st *store.Store, log *slog.Logger) int {
	return inBatches(ctx, log, "expired overdue payments", func() (int, error) { return st.ExpireOverdue(ctx, batchSize) })
}

// MakeDueCycles makes the subscriptions' cycles that come due within
// store.CycleLeadDays, and ends the subscriptions past their end date.
func MakeDueCycles(ctx context.Context, st *store.Store, log *slog.Logger) int {
	return inBatches(ctx, log, "made subscription cycles", func() (int, error) { return st.MakeDueCycles(ctx, batchSize) })
}

func pruneIdempotencyKeys(ctx context.Context, st *store.Store, log *slog.Logger) {
	inBatches(ctx, log, "pruned idempotency keys", func() (int, error) { return st.PruneIdempotencyKeys(ctx, batchSize) })
}

// PruneAttempts deletes delivery attempts older than retention and returns how many.
func PruneAttempts(ctx context.Context, st *store.Store, retention time.Duration, log *slog.Logger) int {
	if retention <= 0 {
		return 0
	}
	before := st.Now().Add(-retention)
	return inBatches(ctx, log, "pruned delivery attempts", func() (int, error) { return st.PruneAttempts(ctx, before, batchSize) })
}

// PruneEvents deletes events older than retention, with their deliveries,
// and returns how many.
func PruneEvents(ctx context.Context, st *store.Store, retention time.Duration, log *slog.Logger) int {
	if retention <= 0 {
		return 0
	}
	before := st.Now().Add(-retention)
	return inBatches(ctx, log, "pruned events", func() (int, error) { return st.PruneEvents(ctx, before, batchSize) })
}

// inBatches runs one batch after another until a batch comes back short.
// done names the work in the log line, e.g. "pruned delivery attempts".
func inBatches(ctx context.Context, log *slog.Logger, done string, batch func() (int, error)) int {
	total := 0
	for ctx.Err() == nil {
		n, err := batch()
		if err != nil {
			if ctx.Err() == nil {
				log.Error(done+": failed", "error", err.Error())
			}
			return total
		}
		total += n
		if n < batchSize {
			break
		}
	}
	if total > 0 {
		log.Info(done, "count", total)
	}
	return total
}
