package pg_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"payments/store/internal/pg"
	"payments/store/storetest"
)

// A pinned statement runs on the same connection call after call, however
// busy the pool is between calls (a prepared statement is planned once per
// connection it runs on); a connection that broke is given up, and the
// next call runs on another; one left unused goes back to the pool.
func TestPinnedStatementsKeepTheirConnection(t *testing.T) {
	ctx := context.Background()
	db := storetest.DB(t).DB
	db.SetMaxOpenConns(8)
	pinned := pg.NewPinned(db, 1, 2*time.Second)
	backend := func() (int32, error) {
		var pid int32
		err := pinned.Pipelined(ctx, []pg.Statement{{SQL: "SELECT pg_backend_pid()"}}, func(_ int, rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&pid); err != nil {
					return err
				}
			}
			return rows.Err()
		})
		return pid, err
	}
	first, err := backend()
	require.NoError(t, err)
	for range 20 {
		// The pool lends its connections to others in between, several at
		// once: borrowed from it, the statement would run on any of them.
		var busy sync.WaitGroup
		for range 6 {
			busy.Go(func() {
				_, err := db.ExecContext(ctx, "SELECT pg_sleep(0.002)")
				require.NoError(t, err)
			})
		}
		busy.Wait()
		pid, err := backend()
		require.NoError(t, err)
		require.Equal(t, first, pid, "the pinned statement moved to another connection")
	}

	_, err = db.ExecContext(ctx, "SELECT pg_terminate_backend($1)", first)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		pid, err := backend()
		return err == nil && pid != first
	}, 5*time.Second, 10*time.Millisecond, "a broken connection is given up for another")

	require.Eventually(t, func() bool { return db.Stats().InUse == 0 }, 10*time.Second, 50*time.Millisecond,
		"an unused connection goes back to the pool")
	_, err = backend()
	require.NoError(t, err, "and the next call takes one again")
	require.Equal(t, 1, db.Stats().InUse)
}
