// Package eventfeed shares one reader of an account's events among all of
// the event streams open on it (GET /api/v1/events/stream), and bounds how
// many streams a key and an account may hold. A thousand idle streams of
// one account cost one query per poll interval, not a thousand; a stream
// that falls behind what the feed keeps reads the store itself until it
// catches up.
package eventfeed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"payments/store"
)

// Limits bound the streams open at once in one service process.
type Limits struct {
	PerKey     int
	PerAccount int
}

// LimitError refuses a stream beyond a limit: Of is "key" or "account".
type LimitError struct {
	Of    string
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("eventfeed: %d event streams per %s are open already", e.Limit, e.Of)
}

// ErrTooManyStreams matches every LimitError.
var ErrTooManyStreams = errors.New("eventfeed: too many event streams")

// Is makes errors.Is(err, ErrTooManyStreams) hold for a LimitError.
func (e *LimitError) Is(target error) bool { return target == ErrTooManyStreams }

// Hub holds the feeds of the scopes that have streams open.
type Hub struct {
	// Keep is how many of a scope's latest events each feed holds; a stream
	// further behind reads the store until it catches up.
	Keep int

	store  *store.Store
	log    *slog.Logger
	poll   time.Duration
	limits Limits

	mu         sync.Mutex
	feeds      map[store.Scope]*feed
	perKey     map[string]int
	perAccount map[string]int
	open       int
	// reads counts the store reads of feeds and of streams catching up.
	reads atomic.Int64
}

// DefaultKeep is how many of a scope's latest events a feed holds for its
// streams (Hub.Keep).
const DefaultKeep = 2048

// readBatch is how many events a feed reads from the store at once.
const readBatch = 500

// New makes a hub whose feeds read the store every poll.
func New(st *store.Store, log *slog.Logger, poll time.Duration, limits Limits) *Hub {
	return &Hub{Keep: DefaultKeep, store: st, log: log, poll: poll, limits: limits,
		feeds: map[store.Scope]*feed{}, perKey: map[string]int{}, perAccount: map[string]int{}}
}

// Stats are a hub's counts, for metrics and tests.
type Stats struct {
	Open, Feeds int
	StoreReads  int64
}

// Stats reads the hub's counts.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Stats{Open: h.open, Feeds: len(h.feeds), StoreReads: h.reads.Load()}
}

// Subscribe opens a stream of scope for key, or refuses it with a
// LimitError. The caller must Close it.
func (h *Hub) Subscribe(scope store.Scope, keyID string) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.perKey[keyID] >= h.limits.PerKey:
		return nil, &LimitError{Of: "key", Limit: h.limits.PerKey}
	case h.perAccount[scope.AccountID] >= h.limits.PerAccount:
		return nil, &LimitError{Of: "account", Limit: h.limits.PerAccount}
	}
	f := h.feeds[scope]
	if f == nil {
		f = h.startFeed(scope)
		h.feeds[scope] = f
	}
	f.refs++
	h.perKey[keyID]++
	h.perAccount[scope.AccountID]++
	h.open++
	return &Subscription{hub: h, feed: f, key: keyID}, nil
}

func (h *Hub) release(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	decrement(h.perKey, s.key)
	decrement(h.perAccount, s.feed.scope.AccountID)
	h.open--
	if s.feed.refs--; s.feed.refs == 0 {
		// The last stream is gone: its feed stops reading at once.
		delete(h.feeds, s.feed.scope)
		s.feed.stop()
	}
}

func decrement(m map[string]int, k string) {
	if m[k]--; m[k] <= 0 {
		delete(m, k)
	}
}

// Subscription is one open stream's view of its scope's feed.
type Subscription struct {
	hub    *Hub
	feed   *feed
	key    string
	closed sync.Once
}

// Close gives the stream's place back.
func (s *Subscription) Close() { s.closed.Do(func() { s.hub.release(s) }) }

// Changed is closed when the feed has read new events; take it before Read
// so that nothing read between the two is missed.
func (s *Subscription) Changed() <-chan struct{} {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	return s.feed.changed
}

// Read returns up to limit of the scope's events after pos (of types, when
// given) that are final, and the position after them: from the feed's
// memory when pos is within it, else from the store.
func (s *Subscription) Read(ctx context.Context, pos store.StreamPosition, types []string, limit int) ([]store.Event, store.StreamPosition, error) {
	f := s.feed
	f.mu.Lock()
	events, next, ok := f.after(pos, types, limit)
	from, head := f.from, f.head
	f.mu.Unlock()
	if ok {
		return events, next, nil
	}
	// Behind what the feed holds: catch up from the store.
	s.hub.reads.Add(1)
	events, next, err := s.hub.store.StreamEvents(ctx, f.scope, pos, types, limit)
	if err != nil {
		return nil, pos, err
	}
	if len(events) == limit {
		return events, next, nil
	}
	// Fewer than asked: every event up to the read's snapshot was seen, so
	// the stream goes on from where the feed's memory starts (when that is
	// ahead; transaction ids compare without collation), and takes what
	// the feed holds after it now rather than at the next change.
	if next.Tx < from.Tx && from.Tx <= head.Tx {
		next = from
	}
	f.mu.Lock()
	more, after, ok := f.after(next, types, limit-len(events))
	f.mu.Unlock()
	if ok {
		events, next = append(events, more...), after
	}
	return events, next, nil
}

// feed reads one scope's events as they become final and keeps the latest.
type feed struct {
	scope store.Scope

	mu sync.Mutex
	// events are the events after from up to head, in stream order; index
	// finds each by id.
	events    []store.Event
	positions []store.StreamPosition
	index     map[string]int
	from      store.StreamPosition
	head      store.StreamPosition
	changed   chan struct{}

	refs   int // guarded by the hub's mu
	cancel context.CancelFunc
}

func (h *Hub) startFeed(scope store.Scope) *feed {
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{scope: scope, index: map[string]int{}, changed: make(chan struct{}), cancel: cancel}
	go h.run(ctx, f)
	return f
}

// stop ends the feed's reads; it returns at once.
func (f *feed) stop() { f.cancel() }

func (h *Hub) run(ctx context.Context, f *feed) {
	h.reads.Add(1)
	start, err := h.store.StreamFrom(ctx, f.scope, "")
	for err != nil {
		if ctx.Err() != nil {
			return
		}
		h.log.Error("events feed: start", "error", err.Error())
		if !sleep(ctx, h.poll) {
			return
		}
		h.reads.Add(1)
		start, err = h.store.StreamFrom(ctx, f.scope, "")
	}
	f.mu.Lock()
	f.from, f.head = start, start
	f.mu.Unlock()
	// Streams waiting for the start position learn it now.
	f.broadcast()
	failing := false
	for {
		f.mu.Lock()
		head := f.head
		f.mu.Unlock()
		h.reads.Add(1)
		readCtx, done := context.WithTimeout(ctx, 10*time.Second)
		events, next, err := h.store.StreamEvents(readCtx, f.scope, head, nil, readBatch)
		done()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if !failing { // once per outage, not at every poll
				h.log.Error("events feed: read; retrying", "error", err.Error())
			}
			failing = true
		case len(events) > 0:
			f.append(events, next, h.Keep)
			failing = false
			if len(events) == readBatch {
				continue
			}
		default:
			failing = false
		}
		if !sleep(ctx, h.poll) {
			return
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// append adds events read after head (next is the position after them)
// and forgets the oldest beyond keep.
func (f *feed) append(events []store.Event, next store.StreamPosition, keep int) {
	f.mu.Lock()
	positions := streamPositions(events)
	f.events = append(f.events, events...)
	f.positions = append(f.positions, positions...)
	f.head = next
	if over := len(f.events) - keep; over > 0 {
		f.from = f.positions[over-1]
		f.events = slices.Delete(f.events, 0, over)
		f.positions = slices.Delete(f.positions, 0, over)
	}
	clear(f.index)
	for i := range f.events {
		f.index[f.events[i].ID] = i
	}
	f.mu.Unlock()
	f.broadcast()
}

// streamPositions are the positions of events read in stream order.
func streamPositions(events []store.Event) []store.StreamPosition {
	out := make([]store.StreamPosition, len(events))
	for i := range events {
		out[i] = store.PositionOf(&events[i])
	}
	return out
}

func (f *feed) broadcast() {
	f.mu.Lock()
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

// after returns what the feed holds after pos (ok false: pos is before it).
// Positions are compared by transaction id and by the event ids the feed
// read in the store's own order, never by comparing ids in Go (the
// database's collation orders them).
func (f *feed) after(pos store.StreamPosition, types []string, limit int) ([]store.Event, store.StreamPosition, bool) {
	var i int
	switch {
	case f.head.Tx == 0:
		return nil, pos, true // not started: nothing is final yet for this feed
	case pos.Tx == f.from.Tx && pos.ID == f.from.ID:
		i = 0
	case pos.ID != "":
		at, ok := f.index[pos.ID]
		if !ok || f.positions[at].Tx != pos.Tx {
			return nil, pos, false
		}
		i = at + 1
	case pos.Tx > f.from.Tx || (pos.Tx == f.from.Tx && f.from.ID == ""):
		// A position "from now": the first event of its transaction or later.
		i = len(f.positions)
		for j, p := range f.positions {
			if p.Tx >= pos.Tx {
				i = j
				break
			}
		}
	default:
		return nil, pos, false
	}
	var out []store.Event
	next := pos
	for ; i < len(f.events) && len(out) < limit; i++ {
		next = f.positions[i]
		if len(types) == 0 || slices.Contains(types, f.events[i].Type) {
			out = append(out, f.events[i])
		}
	}
	return out, next, true
}
