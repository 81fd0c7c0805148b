package dispatcher

import (
	"context"
	"sync"
	"time"

	"payments/store"
)

// The slow lane: a webhook whose recent attempts are slow, or time out,
// shares a small part of the workers (Config.SlowLane) with the other slow
// ones, and its worker takes no chain of its queue; it returns to the fast
// lane once it answers fast again. Hookdeck and Svix isolate slow
// endpoints the same way: one merchant's slow server holds back no one
// else's deliveries. Each dispatcher keeps its own moving average of each
// webhook's attempt times and writes the lane only when it changes (the
// claim reads it, in every process, from webhooks.slow_since).

const (
	// slowAttempts is the average attempt time that moves a webhook to the
	// slow lane; fastAgain, the one that brings it back.
	slowAttempts = 2 * time.Second
	fastAgain    = 500 * time.Millisecond
	// laneWeight is the weight of the newest attempt in the average: a
	// timeout moves a webhook at once; five fast answers bring it back.
	laneWeight = 0.5
)

// lanes holds, per webhook, the moving average of its attempt times and
// the lane this dispatcher last wrote (a chain's deliveries carry the
// webhook as its claim read it, so that copy may be behind the table).
type lanes struct {
	mu    sync.Mutex
	state map[string]laneState
}

type laneState struct {
	average     time.Duration
	wrote, slow bool
}

func newLanes() *lanes { return &lanes{state: map[string]laneState{}} }

// note adds an attempt of w that took took and says which lane w belongs
// in now; changed when that is not the lane w is known to be in.
func (l *lanes) note(w *store.Webhook, took time.Duration) (slow, changed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st, seen := l.state[w.ID]
	known := w.SlowSince != nil
	if st.wrote {
		known = st.slow
	}
	if !seen {
		st.average = took
		if known {
			st.average = max(took, slowAttempts) // a slow webhook comes back on answers, not on one
		}
	}
	st.average = time.Duration(laneWeight*float64(took) + (1-laneWeight)*float64(st.average))
	l.state[w.ID] = st
	switch {
	case !known && st.average >= slowAttempts:
		return true, true
	case known && st.average <= fastAgain:
		return false, true
	}
	return known, false
}

// wrote records that w's lane is now slow (or not) in the table.
func (l *lanes) wrote(webhookID string, slow bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state[webhookID]
	st.wrote, st.slow = true, slow
	l.state[webhookID] = st
}

// keepLane records an attempt of w and moves w to the other lane when its
// attempts say so; it reports whether w is in the slow lane.
func (d *Dispatcher) keepLane(w *store.Webhook, took time.Duration) bool {
	slow, changed := d.lanes.note(w, took)
	if !changed {
		return slow
	}
	// The lane is a hint for the claims to come: a write that fails is
	// made again at the next attempt, which sees the same change.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.store.SetWebhookSlow(ctx, w.ID, slow); err != nil {
		d.log.Warn("dispatcher: webhook lane", "webhook_id", w.ID, "error", err.Error())
		return slow
	}
	d.lanes.wrote(w.ID, slow)
	d.log.Info("dispatcher: webhook lane", "webhook_id", w.ID, "slow", slow)
	return slow
}
