package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"payments/store"
)

// KeyUsage notes each API key's latest use in memory and writes them in
// one statement every interval (and at Stop): a key's "last used" costs
// the request a map write, not a database write. See BENCHMARKS.md.
type KeyUsage struct {
	st       *store.Store
	log      *slog.Logger
	interval time.Duration

	mu   sync.Mutex
	uses map[string]store.KeyUse

	stop chan struct{}
	done chan struct{}
}

// NewKeyUsage writes to st every interval (0: 5 s) once started.
func NewKeyUsage(st *store.Store, log *slog.Logger, interval time.Duration) *KeyUsage {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	return &KeyUsage{st: st, log: log, interval: interval, uses: map[string]store.KeyUse{}}
}

// note records a use of key id from ip now (nil: uses are not recorded).
func (u *KeyUsage) note(id, ip string) {
	if u == nil {
		return
	}
	now := time.Now()
	u.mu.Lock()
	u.uses[id] = store.KeyUse{At: now, IP: ip}
	u.mu.Unlock()
}

// Start writes the noted uses every interval until Stop.
func (u *KeyUsage) Start() {
	u.stop, u.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(u.done)
		tick := time.NewTicker(u.interval)
		defer tick.Stop()
		for {
			select {
			case <-u.stop:
				u.flush()
				return
			case <-tick.C:
				u.flush()
			}
		}
	}()
}

// Stop writes what is noted and ends the writer.
func (u *KeyUsage) Stop() {
	if u.stop == nil {
		return
	}
	close(u.stop)
	<-u.done
	u.stop = nil
}

// flush writes the uses noted since the last flush.
func (u *KeyUsage) flush() {
	u.mu.Lock()
	uses := u.uses
	u.uses = make(map[string]store.KeyUse, len(uses))
	u.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := u.st.RecordKeyUses(ctx, uses); err != nil {
		u.log.Warn("api keys: last use not recorded", "keys", len(uses), "error", err.Error())
	}
}
