// Package jobs runs the periodic maintenance the service needs besides
// serving requests: expiring overdue payments and pruning old idempotency keys.
package jobs

import (
	"context"
	"log/slog"
	"time"

	"payments/store"
)

// Config sets how often each job runs.
type Config struct {
	ExpiryInterval           time.Duration
	IdempotencyPruneInterval time.Duration
}

// batchSize bounds one transaction's work so a backlog never holds locks long.
const batchSize = 500

// Run runs every job until ctx is canceled.
func Run(ctx context.Context, cfg Config, st *store.Store, log *slog.Logger) {
	done := make(chan struct{}, 2)
	go func() { every(ctx, cfg.ExpiryInterval, func() { ExpireOverdue(ctx, st, log) }); done <- struct{}{} }()
	go func() {
		every(ctx, cfg.IdempotencyPruneInterval, func() { pruneIdempotencyKeys(ctx, st, log) })
		done <- struct{}{}
	}()
	<-done
	<-done
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
	total := 0
	for ctx.Err() == nil {
		n, err := st.ExpireOverdue(ctx, batchSize)
		if err != nil {
			if ctx.Err() == nil {
				log.Error("expire overdue payments", "error", err.Error())
			}
			return total
		}
		total += n
		if n < batchSize {
			break
		}
	}
	if total > 0 {
		log.Info("expired overdue payments", "count", total)
	}
	return total
}

func pruneIdempotencyKeys(ctx context.Context, st *store.Store, log *slog.Logger) {
	total := 0
	for ctx.Err() == nil {
		n, err := st.PruneIdempotencyKeys(ctx, batchSize)
		if err != nil {
			if ctx.Err() == nil {
				log.Error("prune idempotency keys", "error", err.Error())
			}
			return
		}
		total += n
		if n < batchSize {
			break
		}
	}
	if total > 0 {
		log.Info("pruned idempotency keys", "count", total)
	}
}
