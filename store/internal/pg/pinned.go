package pg

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Pinned runs pipelines on a few connections of its own, kept out of the
// pool between calls. A prepared statement is planned once per connection
// it runs on, and again on each of them after every ANALYZE of a table it
// reads: the dispatcher's claim takes 2.5-7 ms to plan, and borrowed from
// the pool it ran on a dozen connections, so an autoanalyze of the month's
// deliveries made a dozen claims late by as much. Pinned, it is planned
// once each time: 15 plans for 3,295 claims in a make bench run
// (BENCHMARKS.md, "A give-back that read the whole queue, and the claim
// planned at every call"). A connection unused for idle goes back through
// the pool (which checks it and, once the database is closed, closes it),
// and one that failed goes back at once (the pool discards it when
// broken); the next call takes another.
type Pinned struct {
	db    *sql.DB
	idle  time.Duration
	conns chan *pinnedConn // one per connection it may hold; nil: none held

	mu    sync.Mutex
	timer *time.Timer
}

type pinnedConn struct {
	conn *sql.Conn
	used time.Time
}

// NewPinned holds up to n of db's connections, each for as long as it is
// used at least once every idle. With n of 0 it holds none, and its
// pipelines borrow from the pool as the package's Pipelined does.
func NewPinned(db *sql.DB, n int, idle time.Duration) *Pinned {
	p := &Pinned{db: db, idle: idle}
	if n <= 0 {
		return p
	}
	p.conns = make(chan *pinnedConn, n)
	for range n {
		p.conns <- nil
	}
	return p
}

// Pipelined is the package's Pipelined on one of p's connections; a call
// waits while all of them are in use.
func (p *Pinned) Pipelined(ctx context.Context, stmts []Statement, each func(i int, rows pgx.Rows) error) error {
	if p.conns == nil {
		return Pipelined(ctx, p.db, stmts, each)
	}
	var held *pinnedConn
	select {
	case held = <-p.conns:
	case <-ctx.Done():
		return ctx.Err()
	}
	if held = p.unlessIdle(held); held == nil {
		conn, err := p.db.Conn(ctx)
		if err != nil {
			p.conns <- nil
			return err
		}
		held = &pinnedConn{conn: conn}
	}
	err := onConn(held.conn, func(conn *pgx.Conn) error { return Pipeline(ctx, conn, stmts, each) })
	if err != nil {
		_ = held.conn.Close()
		p.conns <- nil
		return err
	}
	held.used = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns <- held // never blocks: at most one per slot is out
	if p.timer == nil {
		p.timer = time.AfterFunc(p.idle, p.releaseIdle)
	}
	return nil
}

// releaseIdle gives the pool back the connections not used for idle, and
// looks again later while it keeps any. A connection in use comes back
// after (p.mu) and arms the next look itself.
func (p *Pinned) releaseIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := false
	for range cap(p.conns) {
		var held *pinnedConn
		select {
		case held = <-p.conns:
		default:
			continue
		}
		held = p.unlessIdle(held)
		kept = kept || held != nil
		p.conns <- held
	}
	p.timer = nil
	if kept {
		p.timer = time.AfterFunc(p.idle, p.releaseIdle)
	}
}

// unlessIdle is held, or nil once it has gone unused for idle: it goes
// back through the pool, which checks it (pgx pings a connection idle for a
// second) and most likely lends it again to the next call.
func (p *Pinned) unlessIdle(held *pinnedConn) *pinnedConn {
	if held != nil && time.Since(held.used) >= p.idle {
		_ = held.conn.Close()
		return nil
	}
	return held
}
