package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"payments/store/eventfilter"
)

// A webhook with a payload filter receives only the events of its types
// the filter passes. The writer of an event evaluates the filters of the
// webhooks that would receive it (the account's, and its platform's) and
// names those that passed in the outbox statement (outboxCTEs' passed);
// a webhook without a filter is matched in SQL as before. The filtered
// webhooks of an account are read at most once a second per process
// (filterTTL), so a filter set in another process applies within that.

// filterTTL is how long a process trusts what it read of an account's
// filtered webhooks.
const filterTTL = time.Second

// maxRemembered bounds the accounts, and the compiled filters, remembered at once.
const maxRemembered = 10_000

// filteredHook is a webhook with a filter, as the writer evaluates it.
type filteredHook struct {
	id     string
	events []string
	filter *eventfilter.Filter
}

type filterEntry struct {
	read  time.Time
	hooks []filteredHook
}

// webhookFilters remembers, per account and mode, its filtered webhooks.
type webhookFilters struct {
	mu    sync.Mutex
	known map[filterKey]filterEntry
	// compiled shares one program per expression.
	compiled map[string]*eventfilter.Filter
}

type filterKey struct {
	account  string
	livemode bool
}

func newWebhookFilters() *webhookFilters {
	return &webhookFilters{known: map[filterKey]filterEntry{}, compiled: map[string]*eventfilter.Filter{}}
}

// forget drops everything remembered: a webhook changed here.
func (f *webhookFilters) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.known)
}

// compile is src's program, compiled once.
func (f *webhookFilters) compile(src string) (*eventfilter.Filter, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.compiled[src]; ok {
		return p, nil
	}
	p, err := eventfilter.Compile(src)
	if err != nil {
		return nil, err
	}
	if len(f.compiled) >= maxRemembered {
		clear(f.compiled)
	}
	f.compiled[src] = p
	return p, nil
}

// filteredHooks are the enabled webhooks with a filter that may receive
// the events of account in livemode: its own and its platform's.
func (s *Store) filteredHooks(ctx context.Context, account string, livemode bool) ([]filteredHook, error) {
	key := filterKey{account, livemode}
	now := time.Now()
	s.filters.mu.Lock()
	e, ok := s.filters.known[key]
	s.filters.mu.Unlock()
	if ok && now.Sub(e.read) < filterTTL {
		return e.hooks, nil
	}
	var rows []struct {
		ID     string   `bun:"id"`
		Events []string `bun:"events,array"`
		Filter string   `bun:"filter"`
	}
	err := s.idb(ctx).NewRaw(`SELECT w.id, w.events, w.filter FROM webhooks w JOIN accounts a ON a.id = ?
		WHERE w.account_id IN (a.id, a.parent_account_id) AND w.livemode = ? AND w.enabled AND w.filter IS NOT NULL`,
		account, livemode).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("store: filtered webhooks: %w", err)
	}
	hooks := make([]filteredHook, 0, len(rows))
	for _, r := range rows {
		p, err := s.filters.compile(r.Filter)
		if err != nil {
			// Checked when saved: one that no longer compiles passes nothing.
			continue
		}
		hooks = append(hooks, filteredHook{id: r.ID, events: r.Events, filter: p})
	}
	s.filters.mu.Lock()
	if len(s.filters.known) >= maxRemembered {
		clear(s.filters.known)
	}
	s.filters.known[key] = filterEntry{read: now, hooks: hooks}
	s.filters.mu.Unlock()
	return hooks, nil
}

// passedFilters names the filtered webhooks of account in livemode that
// take eventType and whose filter passes the event whose object is data
// (its JSON): none, at no cost but a map lookup, for an account without.
func (s *Store) passedFilters(ctx context.Context, account string, livemode bool, eventType string, data []byte) ([]string, error) {
	hooks, err := s.filteredHooks(ctx, account, livemode)
	if err != nil || len(hooks) == 0 {
		return []string{}, err
	}
	var object map[string]any
	passed := []string{}
	for _, h := range hooks {
		if !slices.Contains(h.events, eventType) {
			continue
		}
		if object == nil {
			if err := json.Unmarshal(data, &object); err != nil {
				return nil, fmt.Errorf("store: filter %s: %w", eventType, err)
			}
		}
		if h.filter.Match(eventType, livemode, object) {
			passed = append(passed, h.id)
		}
	}
	return passed, nil
}

// passesFilter says whether w (its filter, if any) takes event e: what
// the outbox decided when e was written, decided again for a replay.
func (s *Store) passesFilter(w *Webhook, e *Event) bool {
	if w.Filter == nil {
		return true
	}
	p, err := s.filters.compile(*w.Filter)
	if err != nil {
		return false
	}
	var object map[string]any
	if err := json.Unmarshal(e.Data, &object); err != nil {
		return false
	}
	return p.Match(e.Type, e.Livemode, object)
}
