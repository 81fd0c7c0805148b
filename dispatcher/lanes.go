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

// lanes holds the moving average of each webhook's attempt times.
type lanes struct {
	mu      sync.Mutex
	average map[string]time.Duration
}

func newLanes() *lanes { return &lanes{average: map[string]time.Duration{}} }

// note adds an attempt of w that took took and says which lane w belongs
// in now; changed when that is not the lane w was claimed in.
func (l *lanes) note(w *store.Webhook, took time.Duration) (slow, changed bool) {
	l.mu.Lock()
	avg, seen := l.average[w.ID]
	if !seen {
		avg = took
		if w.SlowSince != nil {
			avg = max(took, slowAttempts) // a slow webhook comes back on answers, not on one
		}
	}
	avg = time.Duration(laneWeight*float64(took) + (1-laneWeight)*float64(avg))
	l.average[w.ID] = avg
	l.mu.Unlock()
	wasSlow := w.SlowSince != nil
	switch {
	case !wasSlow && avg >= slowAttempts:
		return true, true
	case wasSlow && avg <= fastAgain:
		return false, true
	}
	return wasSlow, false
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
	d.log.Info("dispatcher: webhook lane", "webhook_id", w.ID, "slow", slow)
	return slow
}
