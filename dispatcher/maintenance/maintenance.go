// Package maintenance runs the periodic maintenance the service needs besides
// serving requests: expiring overdue payments, pruning old idempotency
// keys, and keeping the history tables' monthly partitions (made ahead,
// dropped past retention).
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
	// PruneInterval is how often old idempotency keys and history go.
	PruneInterval time.Duration
	// RollupInterval is how often the changes' rollup deltas are folded
	// into the overview's hours and the payers (store.FoldRollups).
	RollupInterval time.Duration
	// AttemptRetention is how long delivery attempts are kept at least:
	// a month goes whole once its last day is this old.
	AttemptRetention time.Duration
	// EventRetention is how long events (and their deliveries) are kept at
	// least, the same way: what the Events API can list and a webhook can
	// recover.
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
			ScheduleDailyReports(ctx, st, log)
			NoticeExpiringCertificates(ctx, st, log)
			RemindDisputesAwaitingDefense(ctx, st, log)
		})
	})
	jobs.Go(func() {
		every(ctx, cfg.RollupInterval, func() {
			FoldRollups(ctx, st, log)
			AdvanceReplays(ctx, st, log)
		})
	})
	jobs.Go(func() {
		every(ctx, cfg.PruneInterval, func() {
			pruneIdempotencyKeys(ctx, st, log)
			inBatches(ctx, log, "dropped expired report files", func() (int, error) { return st.PruneReportFiles(ctx, batchSize) })
			KeepPartitions(ctx, st, cfg, time.Now(), log)
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

// ScheduleDailyReports makes the daily reconciliation reports whose day
// has ended in their account's time zone.
func ScheduleDailyReports(ctx context.Context, st *store.Store, log *slog.Logger) int {
	return inBatches(ctx, log, "scheduled daily reports", func() (int, error) { return st.ScheduleDailyReports(ctx, batchSize) })
}

// NoticeExpiringCertificates tells the owners of webhooks whose client
// certificate ends within 30 days, once per certificate.
func NoticeExpiringCertificates(ctx context.Context, st *store.Store, log *slog.Logger) int {
	return inBatches(ctx, log, "noticed expiring client certificates", func() (int, error) {
		return st.NoticeExpiringCertificates(ctx, batchSize)
	})
}

// RemindDisputesAwaitingDefense e-mails the owners and admins of disputes
// whose deadline to answer is within a day, without a defense, once each.
func RemindDisputesAwaitingDefense(ctx context.Context, st *store.Store, log *slog.Logger) int {
	return inBatches(ctx, log, "reminded disputes awaiting a defense", func() (int, error) {
		return st.RemindDisputesAwaitingDefense(ctx, batchSize)
	})
}

// AdvanceReplays queues the deliveries of the running webhook replays, a
// chunk of events at a time, until none has more to queue now.
func AdvanceReplays(ctx context.Context, st *store.Store, log *slog.Logger) int {
	return inBatches(ctx, log, "replayed events", func() (int, error) { return st.AdvanceReplays(ctx, batchSize) })
}

// FoldRollups folds the rollup deltas committed changes appended.
func FoldRollups(ctx context.Context, st *store.Store, log *slog.Logger) int {
	n, err := st.FoldRollups(ctx)
	if err != nil && ctx.Err() == nil {
		log.Error("fold rollups: failed; trying again at the next interval", "error", err.Error())
	}
	return n
}

func pruneIdempotencyKeys(ctx context.Context, st *store.Store, log *slog.Logger) {
	inBatches(ctx, log, "pruned idempotency keys", func() (int, error) { return st.PruneIdempotencyKeys(ctx, batchSize) })
}

// KeepPartitions makes the history tables' partitions of the months
// until store.MonthsAhead past now, and drops those wholly older than
// their retention (deliveries with their events). now is the wall clock's:
// ids, and so partitions, follow it. It returns the partitions dropped.
func KeepPartitions(ctx context.Context, st *store.Store, cfg Config, now time.Time, log *slog.Logger) []string {
	if err := st.EnsurePartitions(ctx, now, now.AddDate(0, store.MonthsAhead, 0)); err != nil {
		log.Error("make history partitions: failed", "error", err.Error())
	}
	var dropped []string
	for _, drop := range []struct {
		h         store.History
		retention time.Duration
	}{
		{store.HistoryAttempts, cfg.AttemptRetention},
		{store.HistoryDeliveries, cfg.EventRetention},
		{store.HistoryEvents, cfg.EventRetention},
	} {
		if drop.retention <= 0 {
			continue
		}
		gone, err := st.DropPartitions(ctx, drop.h, now.Add(-drop.retention))
		dropped = append(dropped, gone...)
		if err != nil {
			log.Error("drop history partitions: failed", "table", drop.h.Table, "error", err.Error())
			// Events wait for their deliveries' month to go first.
			if drop.h == store.HistoryDeliveries {
				break
			}
		}
	}
	if len(dropped) > 0 {
		log.Info("dropped history partitions", "partitions", dropped)
	}
	return dropped
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
