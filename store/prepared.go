package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// The hot paths (reading a payment, creating one, the dispatcher's finish
// and next lease) run as parameterized statements ($1, $2, ...) that pgx
// prepares once per connection, so PostgreSQL plans them once. Everything
// else goes through bun, whose queries carry their values in the SQL text
// and are therefore planned on every call, which is fine off the hot paths.

// sqlRunner is what *sql.DB and *sql.Tx have in common.
type sqlRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// runner returns the ambient transaction's connection, else the pool.
func (s *Store) runner(ctx context.Context) sqlRunner {
	if tx, ok := ctx.Value(ambientTxKey{}).(bun.Tx); ok {
		return tx.Tx
	}
	return s.db.DB
}

// prepared prefixes args with pgx's statement-cache mode.
func prepared(args ...any) []any {
	return append([]any{pgx.QueryExecModeCacheStatement}, args...)
}

// queryInto runs a prepared query and scans its first row into dest (a
// model) the way bun would; no row is sql.ErrNoRows.
func (s *Store) queryInto(ctx context.Context, r sqlRunner, dest any, query string, args ...any) error {
	rows, err := r.QueryContext(ctx, query, prepared(args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := s.db.ScanRow(ctx, rows, dest); err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	return rows.Close()
}
