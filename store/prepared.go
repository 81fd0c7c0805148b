package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// The hot paths (reading a payment, creating one, the dispatcher's finish
// and next lease) run as parameterized statements ($1, $2, ...) that pgx
// prepares once per connection, so PostgreSQL plans them once. Everything
// else goes through bun, whose queries carry their values in the SQL text
// and are therefore planned on every call, which is fine off the hot paths.
//
// Outside a request's transaction the hot paths also skip database/sql's
// row machinery (and bun's reflection): they borrow the pool's connection
// as the native *pgx.Conn and scan into explicit destinations. Profiles of
// GET /payments/{id} had a third of the service's CPU in those layers.

// prepared prefixes args with pgx's statement-cache mode.
func prepared(args ...any) []any {
	return append([]any{pgx.QueryExecModeCacheStatement}, args...)
}

// hotRow runs a prepared query and scans its first row into dest (plain
// values: strings, numbers, bools, times, []byte for JSON); no row is an
// error that errors.Is sql.ErrNoRows. In an ambient transaction it runs there.
func (s *Store) hotRow(ctx context.Context, query string, args []any, dest ...any) error {
	if tx, ok := ctx.Value(ambientTxKey{}).(bun.Tx); ok {
		return tx.Tx.QueryRowContext(ctx, query, prepared(args...)...).Scan(dest...)
	}
	return s.withPgx(ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, query, prepared(args...)...).Scan(dest...)
	})
}

// pgUUID passes a uuid.UUID as pgx's own type: as a driver.Valuer it would
// take pgx's slow path (the value's text, re-parsed, on every call).
func pgUUID(id uuid.UUID) pgtype.UUID { return pgtype.UUID{Bytes: id, Valid: true} }

// statement is one prepared statement of a pipeline and its arguments.
type statement struct {
	sql  string
	args []any
}

// pipelined runs prepared statements all sent in one write and answered in
// one read: one round trip, and one implicit transaction (a failing
// statement fails the rest; a setting made local by one holds for the ones
// after it). each reads statement i's rows. This is how coalesced calls
// (coalescer.go) share a round trip while every statement keeps its own
// cached plan.
func (s *Store) pipelined(ctx context.Context, stmts []statement, each func(i int, rows pgx.Rows) error) error {
	return s.withPgx(ctx, func(conn *pgx.Conn) error {
		batch := &pgconn.Batch{}
		// One builder for all: each statement's encoding is copied out
		// before the next is built.
		var eqb pgx.ExtendedQueryBuilder
		for _, st := range stmts {
			// Prepared once per connection (named after the query's digest).
			sd, err := conn.Prepare(ctx, st.sql, st.sql)
			if err != nil {
				return err
			}
			if err := eqb.Build(conn.TypeMap(), sd, st.args); err != nil {
				return err
			}
			batch.ExecPrepared(sd.Name, eqb.ParamValues, eqb.ParamFormats, eqb.ResultFormats)
		}
		results := conn.PgConn().ExecBatch(ctx, batch)
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
	})
}

// separately runs prepared statements that return no rows in one round
// trip, each in its own transaction (a Sync after each), so a failing
// statement fails only itself. It returns each statement's error; err is
// set instead when the round trip itself failed (then none is known).
func (s *Store) separately(ctx context.Context, stmts []statement) (errs []error, err error) {
	errs = make([]error, len(stmts))
	err = s.withPgx(ctx, func(conn *pgx.Conn) error {
		sds := make([]*pgconn.StatementDescription, len(stmts))
		for i, st := range stmts {
			// Prepared once per connection (named after the query's digest).
			sd, err := conn.Prepare(ctx, st.sql, st.sql)
			if err != nil {
				return err
			}
			sds[i] = sd
		}
		p := conn.PgConn().StartPipeline(ctx)
		var sent []int
		var eqb pgx.ExtendedQueryBuilder // reused: each encoding is copied out when sent (but see below)
		for i, st := range stmts {
			if errs[i] = eqb.Build(conn.TypeMap(), sds[i], st.args); errs[i] != nil {
				continue
			}
			// The pipeline keeps the result formats until the results are
			// read: they must not be the builder's, which the next overwrites.
			p.SendQueryStatement(sds[i], eqb.ParamValues, eqb.ParamFormats, slices.Clone(eqb.ResultFormats))
			p.SendPipelineSync()
			sent = append(sent, i)
		}
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

// withPgx lends fn one of the pool's connections as a native *pgx.Conn. A
// connection fn leaves broken is closed by pgx, and database/sql then
// discards it instead of returning it to the pool.
func (s *Store) withPgx(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		return fn(driverConn.(*stdlib.Conn).Conn())
	})
}

// keyProbePlan is the settings, as set_config calls for a SELECT list and
// local to the transaction, under which a batch statement over arrays runs
// (the finish of deliveries, the creation of payments). A generic plan,
// planned once per connection: a custom plan would be planned again for
// every batch, the arrays' lengths making it look cheaper (see
// genericPlanSQL). And that plan is made of key probes only: with
// sequential scans, hash and merge joins off, the planner cannot choose what
// it would for the small tables of a fresh database (a hash join over a
// sequential scan of webhook_deliveries, for the finish), which a cached
// generic plan would keep doing once the tables are large. Every access such
// a statement makes is by key, so probes are the right plan at any size.
const keyProbePlan = `set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
	set_config('enable_mergejoin', 'off', true)`

// eachAnswer reads a batch statement's answer: one row per input, led by the
// input's ordinal (from 1). Each row is scanned into dest, whose first
// target is ordinal, and then handed to each with the input's index. A row
// out of range, or a count of rows other than n, is an error.
func eachAnswer(rows pgx.Rows, n int, ordinal *int64, dest []any, each func(i int)) error {
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
