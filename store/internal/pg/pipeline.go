// Package pg is the store's pgx plumbing: prepared statements run on a
// connection borrowed from database/sql's pool (or kept out of it for the
// statements that run most, Pinned), pipelines that send many
// statements in one round trip, the coalescer that gathers concurrent calls
// into batches, and the planner settings batch statements run under. It
// holds no table's SQL: the store's *_prepared.go files do.
package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
)

// Prepared prefixes args with pgx's statement-cache mode: the statement is
// prepared once per connection (PostgreSQL plans it once) and then executed
// by name. The pool's default mode is the simple protocol, for bun's
// queries, which carry their values in the SQL text.
func Prepared(args ...any) []any {
	return append([]any{pgx.QueryExecModeCacheStatement}, args...)
}

// UUID passes a uuid.UUID as pgx's own type: as a driver.Valuer it would
// take pgx's slow path (the value's text, re-parsed, on every call).
func UUID(id uuid.UUID) pgtype.UUID { return pgtype.UUID{Bytes: id, Valid: true} }

// Statement is one prepared statement of a pipeline and its arguments.
type Statement struct {
	SQL  string
	Args []any
}

// Row runs a prepared query on db's pool and scans its first row into dest
// (plain values: strings, numbers, bools, times, []byte for JSON), without
// database/sql's row machinery; no row is an error that errors.Is
// sql.ErrNoRows. Profiles of a payment read had a third of the service's
// CPU in database/sql's and bun's layers.
func Row(ctx context.Context, db *sql.DB, query string, args []any, dest ...any) error {
	return WithConn(ctx, db, func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, query, Prepared(args...)...).Scan(dest...)
	})
}

// Pipelined runs prepared statements all sent in one write and answered in
// one read: one round trip, and one implicit transaction (a failing
// statement fails the rest; a setting made local by one holds for the ones
// after it). each reads statement i's rows. This is how coalesced calls
// share a round trip while every statement keeps its own cached plan.
func Pipelined(ctx context.Context, db *sql.DB, stmts []Statement, each func(i int, rows pgx.Rows) error) error {
	return WithConn(ctx, db, func(conn *pgx.Conn) error { return Pipeline(ctx, conn, stmts, each) })
}

// Pipeline is Pipelined on a connection already borrowed (see Transaction).
func Pipeline(ctx context.Context, conn *pgx.Conn, stmts []Statement, each func(i int, rows pgx.Rows) error) error {
	batch, wire := batchOnKeptWire()
	err := encodeBatch(ctx, conn, batch, stmts)
	if err != nil {
		keepWire(batch, wire)
		return err
	}
	results := conn.PgConn().ExecBatch(ctx, batch)
	keepWire(batch, wire)
	for i := 0; results.NextResult(); i++ {
		rows := pgx.RowsFromResultReader(conn.TypeMap(), results.ResultReader())
		err := each(i, rows)
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			_ = results.Close()
			return err
		}
	}
	return results.Close()
}

// encodeBatch prepares stmts on conn (once per connection, named after the
// query's digest) and encodes them into batch.
func encodeBatch(ctx context.Context, conn *pgx.Conn, batch *pgconn.Batch, stmts []Statement) error {
	// One encoding buffer for all: each statement's is copied into the
	// batch before the next is built.
	p := takeParams()
	defer p.release()
	for _, st := range stmts {
		sd, err := conn.Prepare(ctx, st.SQL, st.SQL)
		if err != nil {
			return err
		}
		if err := p.build(conn.TypeMap(), sd, st.Args); err != nil {
			return err
		}
		batch.ExecPrepared(sd.Name, p.values, p.formats, p.results)
	}
	return nil
}

// Begin and Commit open and close a transaction that spans pipelines: a
// pipeline that starts with Begin leaves it open after its round trip, and
// one that ends with Commit closes it in the same write as its last
// statement, so locks its statements took are held for no round trip at
// all (see Transaction).
var (
	Begin  = Statement{SQL: "begin"}
	Commit = Statement{SQL: "commit"}
)

// Transaction runs fn, whose pipelines on conn open a transaction (Begin)
// and close it (Commit), and rolls back whatever fn leaves open when it
// fails, so the connection goes back to the pool outside any transaction
// (or closed, when even the rollback fails).
func Transaction(ctx context.Context, conn *pgx.Conn, fn func() error) error {
	err := fn()
	if err != nil && !conn.IsClosed() && conn.PgConn().TxStatus() != 'I' {
		// Even when ctx is done: the connection must not go back to the
		// pool in a transaction (database/sql would discard it).
		rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if _, rbErr := conn.Exec(rbCtx, "rollback"); rbErr != nil {
			_ = conn.Close(rbCtx)
		}
		cancel()
	}
	return err
}

// Separately runs prepared statements that return no rows in one round
// trip, each in its own transaction (a Sync after each), so a failing
// statement fails only itself. It returns each statement's error; err is
// set instead when the round trip itself failed (then none is known).
func Separately(ctx context.Context, db *sql.DB, stmts []Statement) (errs []error, err error) {
	errs = make([]error, len(stmts))
	err = WithConn(ctx, db, func(conn *pgx.Conn) error {
		sds := make([]*pgconn.StatementDescription, len(stmts))
		for i, st := range stmts {
			// Prepared once per connection (named after the query's digest).
			sd, err := conn.Prepare(ctx, st.SQL, st.SQL)
			if err != nil {
				return err
			}
			sds[i] = sd
		}
		p := conn.PgConn().StartPipeline(ctx)
		var sent []int
		enc := takeParams() // reused: each encoding is copied out when sent (but see below)
		for i, st := range stmts {
			if errs[i] = enc.build(conn.TypeMap(), sds[i], st.Args); errs[i] != nil {
				continue
			}
			// The pipeline keeps the result formats until the results are
			// read: they must not be the encoder's, which the next overwrites.
			p.SendQueryStatement(sds[i], enc.values, enc.formats, slices.Clone(enc.results))
			p.SendPipelineSync()
			sent = append(sent, i)
		}
		enc.release()
		if err := p.Flush(); err != nil {
			_ = p.Close()
			return err
		}
		for _, i := range sent {
			res, err := p.GetResults()
			var pgErr *pgconn.PgError
			switch {
			case errors.As(err, &pgErr):
				errs[i] = err
			case err != nil:
				_ = p.Close()
				return err
			default:
				if rr, ok := res.(*pgconn.ResultReader); ok {
					if _, errs[i] = rr.Close(); errs[i] != nil && !errors.As(errs[i], &pgErr) {
						_ = p.Close()
						return errs[i]
					}
				}
			}
			if _, err := p.GetResults(); err != nil { // the statement's Sync
				_ = p.Close()
				return err
			}
		}
		return p.Close()
	})
	return errs, err
}

// WithConn lends fn one of db's pooled connections as a native *pgx.Conn.
// A connection fn leaves broken is closed by pgx, and database/sql then
// discards it instead of returning it to the pool.
func WithConn(ctx context.Context, db *sql.DB, fn func(*pgx.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return onConn(conn, fn)
}

// onConn lends fn the native *pgx.Conn under a database/sql connection.
func onConn(conn *sql.Conn, fn func(*pgx.Conn) error) error {
	return conn.Raw(func(driverConn any) error {
		return fn(driverConn.(*stdlib.Conn).Conn())
	})
}

// EachAnswer reads a batch statement's answer: one row per input, led by the
// input's ordinal (from 1). Each row is scanned into dest, whose first
// target is ordinal, and then handed to each with the input's index. A row
// out of range, or a count of rows other than n, is an error.
func EachAnswer(rows pgx.Rows, n int, ordinal *int64, dest []any, each func(i int)) error {
	seen := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if *ordinal < 1 || *ordinal > int64(n) {
			return fmt.Errorf("answer for input %d outside the batch of %d", *ordinal, n)
		}
		seen++
		each(int(*ordinal - 1))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if seen != n {
		return fmt.Errorf("%d answers for a batch of %d", seen, n)
	}
	return nil
}
