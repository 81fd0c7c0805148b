package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// Replica is a streaming standby of the primary that reads allowed to lag
// go to (REPLICA_DATABASE_URL): dashboard lists and searches, never a
// money decision and never a read right after the reader's own write
// (see MayLag). It is used only while it is at most MaxLag behind,
// measured against the primary's WAL: every Interval the primary's
// position is noted, and the replica's lag is how long ago the newest
// noted position it has replayed was the primary's. A replica that stops
// answering, stops replaying or falls behind is skipped, and the primary
// serves, until it catches up again.
type Replica struct {
	db, primary *bun.DB
	cfg         ReplicaConfig
	log         *slog.Logger

	mu sync.Mutex
	// positions are the primary's WAL positions noted in the last MaxLag
	// (and one before), oldest first.
	positions []walPosition
	usable    bool
	lag       time.Duration
	// down holds the error that made the replica unusable, once logged.
	down string

	stop chan struct{}
	done chan struct{}
}

// ReplicaConfig bounds the replica's use.
type ReplicaConfig struct {
	// MaxLag is how far behind the primary a replica may be and still serve.
	MaxLag time.Duration
	// Interval is how often its lag is measured (at most MaxLag/4).
	Interval time.Duration
}

type walPosition struct {
	at  time.Time
	lsn uint64
}

// NewReplica watches replica (a standby of primary); Start measures it.
func NewReplica(primary, replica *bun.DB, cfg ReplicaConfig, log *slog.Logger) *Replica {
	if cfg.MaxLag <= 0 {
		cfg.MaxLag = 5 * time.Second
	}
	if cfg.Interval <= 0 || cfg.Interval > cfg.MaxLag/4 {
		cfg.Interval = cfg.MaxLag / 4
	}
	return &Replica{db: replica, primary: primary, cfg: cfg, log: log}
}

// Start measures the replica every Interval until Stop; a first
// measurement is made before it returns.
func (r *Replica) Start(ctx context.Context) {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	r.Check(ctx)
	go func() {
		defer close(r.done)
		t := time.NewTicker(r.cfg.Interval)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				r.Check(ctx)
			}
		}
	}()
}

// Stop ends the measurements and returns once they have.
func (r *Replica) Stop() {
	if r.stop == nil {
		return
	}
	close(r.stop)
	<-r.done
}

// Lag is the replica's last measured lag, and whether it is used.
func (r *Replica) Lag() (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lag, r.usable
}

// Check measures the replica's lag once and decides whether it serves.
func (r *Replica) Check(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.MaxLag)
	defer cancel()
	now := time.Now()
	var current string
	if err := r.primary.NewRaw("SELECT pg_current_wal_lsn()::text").Scan(ctx, &current); err != nil {
		// Without the primary nothing is served anyway; keep the last word.
		return
	}
	at, err := parseLSN(current)
	if err != nil {
		return
	}
	r.mu.Lock()
	r.positions = append(r.positions, walPosition{at: now, lsn: at})
	for len(r.positions) > 1 && now.Sub(r.positions[1].at) > r.cfg.MaxLag {
		r.positions = r.positions[1:]
	}
	r.mu.Unlock()

	var replayedText sql.NullString
	var recovering bool
	err = r.db.NewRaw("SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text").Scan(ctx, &recovering, &replayedText)
	if err == nil && (!recovering || !replayedText.Valid) {
		err = errors.New("not a standby replaying the primary's WAL")
	}
	var replayed uint64
	if err == nil {
		replayed, err = parseLSN(replayedText.String)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.usable = false
		if msg := err.Error(); msg != r.down {
			r.down = msg
			r.log.Warn("replica: not used", "error", msg)
		}
		return
	}
	// The newest noted primary position the replica has replayed: it has
	// every commit made before then.
	r.lag = r.cfg.MaxLag + time.Nanosecond
	for i := len(r.positions) - 1; i >= 0; i-- {
		if r.positions[i].lsn <= replayed {
			r.lag = max(now.Sub(r.positions[i].at), 0)
			break
		}
	}
	usable := r.lag <= r.cfg.MaxLag
	if usable != r.usable {
		if usable {
			r.down = ""
			r.log.Info("replica: used", "lag_ms", r.lag.Milliseconds())
		} else {
			r.log.Warn("replica: not used, behind", "lag_ms", r.lag.Milliseconds(), "max_lag_ms", r.cfg.MaxLag.Milliseconds())
		}
	}
	r.usable = usable
}

// parseLSN reads a WAL position as PostgreSQL writes it (hi/lo in hex).
func parseLSN(s string) (uint64, error) {
	var hi, lo uint32
	if _, err := fmt.Sscanf(s, "%X/%X", &hi, &lo); err != nil {
		return 0, fmt.Errorf("store: WAL position %q: %w", s, err)
	}
	return uint64(hi)<<32 | uint64(lo), nil
}

// failed marks the replica unusable after a read on it failed; the next
// Check that finds it well brings it back.
func (r *Replica) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.usable = false
	if msg := err.Error(); msg != r.down {
		r.down = msg
		r.log.Warn("replica: read failed, the primary serves", "error", msg)
	}
}

func (r *Replica) use() (*bun.DB, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.db, r.usable
}

type mayLagKey struct{}

// MayLag marks ctx's reads as allowed to come from the replica: pages
// that list and search, in a request that follows no write of its reader's
// own (the dashboard keeps its reads on the primary for MaxLag after one).
func MayLag(ctx context.Context) context.Context {
	return context.WithValue(ctx, mayLagKey{}, true)
}

type replicaDBKey struct{}

// lagging runs read on the replica when ctx allows it and the replica is
// in use (every store call read makes with the context it is given reads
// there), else with ctx as it is; a read that fails on the replica runs
// again on the primary. read must start afresh each call.
func (s *Store) lagging(ctx context.Context, read func(ctx context.Context) error) error {
	if _, inTx := ambientTx(ctx); !inTx && s.replica != nil && ctx.Value(mayLagKey{}) != nil {
		if db, ok := s.replica.use(); ok {
			// A replica whose host stopped answering (no refusal, no reset)
			// holds a read no longer than MaxLag: then the primary serves.
			rctx, cancel := context.WithTimeout(context.WithValue(ctx, replicaDBKey{}, db), s.replica.cfg.MaxLag)
			err := read(rctx)
			cancel()
			if err == nil || errors.Is(err, sql.ErrNoRows) || errors.Is(err, ErrNotFound) || ctx.Err() != nil {
				return err
			}
			s.replica.failed(fmt.Errorf("store: read on the replica: %w", err))
		}
	}
	return read(ctx)
}
