package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

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

// filteredHooksSQL reads the enabled webhooks with a filter that may
// receive the events of account $1 in mode $2: its own and its platform's.
// Their event types come as a JSON array, which every reader scans as text.
const filteredHooksSQL = `SELECT w.id, array_to_json(w.events)::text, w.filter FROM webhooks w JOIN accounts a ON a.id = $1
		WHERE w.account_id IN (a.id, a.parent_account_id) AND w.livemode = $2 AND w.enabled AND w.filter IS NOT NULL`

// filterReader runs filteredHooksSQL on a miss, through what its caller
// holds: the transaction or connection an event is being written in, or
// the pool when it holds none. A writer holding a connection must never
// wait for a second one from the same pool: as many writers as the pool
// has connections, each waiting for one more, wait for ever (the PSP
// worker's 32 workers applying notifications did, on a pool of 20, once
// the cache aged).
type filterReader func(ctx context.Context, args ...any) (filterRows, error)

// filterRows is what a filterReader's query answers, row by row.
type filterRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// sqlQuerier is a database/sql handle: a transaction's, or the pool's.
type sqlQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// filtersThrough reads through q.
func filtersThrough(q sqlQuerier) filterReader {
	return func(ctx context.Context, args ...any) (filterRows, error) {
		return q.QueryContext(ctx, filteredHooksSQL, args...)
	}
}

// filtersIn reads through tx.
func filtersIn(tx bun.Tx) filterReader { return filtersThrough(tx.Tx) }

// filtersOn reads through conn, in its transaction.
func filtersOn(conn *pgx.Conn) filterReader {
	return func(ctx context.Context, args ...any) (filterRows, error) {
		rows, err := conn.Query(ctx, filteredHooksSQL, args...)
		return pgxRows{rows}, err
	}
}

// pgxRows are pgx's rows as a filterRows (pgx's Close returns nothing).
type pgxRows struct{ pgx.Rows }

func (r pgxRows) Close() error {
	r.Rows.Close()
	return nil
}

// filtersFor reads through ctx's ambient transaction, or the pool: for a
// writer that holds no connection yet.
func (s *Store) filtersFor(ctx context.Context) filterReader {
	if tx, ok := ambientTx(ctx); ok {
		return filtersIn(tx)
	}
	s.fromPool(ctx, "a filter read")
	return filtersThrough(s.db.DB)
}

// filteredHooks are the enabled webhooks with a filter that may receive
// the events of account in livemode: its own and its platform's, read
// with read when what this process remembers is older than filterTTL.
func (s *Store) filteredHooks(ctx context.Context, read filterReader, account string, livemode bool) ([]filteredHook, error) {
	key := filterKey{account, livemode}
	now := time.Now()
	s.filters.mu.Lock()
	e, ok := s.filters.known[key]
	s.filters.mu.Unlock()
	if ok && now.Sub(e.read) < filterTTL {
		return e.hooks, nil
	}
	rows, err := read(ctx, account, livemode)
	if err != nil {
		return nil, fmt.Errorf("store: filtered webhooks: %w", err)
	}
	// Closed before the caller's next statement on its connection.
	defer func() { _ = rows.Close() }()
	var hooks []filteredHook
	for rows.Next() {
		var id, events, src string
		if err := rows.Scan(&id, &events, &src); err != nil {
			return nil, fmt.Errorf("store: filtered webhooks: %w", err)
		}
		h := filteredHook{id: id}
		if err := json.Unmarshal([]byte(events), &h.events); err != nil {
			return nil, fmt.Errorf("store: filtered webhooks: %w", err)
		}
		if h.filter, err = s.filters.compile(src); err != nil {
			// Checked when saved: one that no longer compiles passes nothing.
			continue
		}
		hooks = append(hooks, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: filtered webhooks: %w", err)
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
// read reads them on a miss (filterReader).
func (s *Store) passedFilters(ctx context.Context, read filterReader, account string, livemode bool, eventType string, data []byte) ([]string, error) {
	hooks, err := s.filteredHooks(ctx, read, account, livemode)
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
