package store

import (
	"database/sql"
	"time"

	"payments/store/internal/pg"
)

// pinned holds n of db's connections for the statements planned once per
// connection that run most often (the dispatcher's claim and its batches
// of successes; pg.Pinned says why), when the pool has room for them
// beside everything else; a smaller pool lends its connections to them as
// to any other statement.
func pinned(db *sql.DB, n int) *pg.Pinned {
	if size := db.Stats().MaxOpenConnections; size > 0 && size < minPoolForPinned {
		n = 0
	}
	return pg.NewPinned(db, n, time.Second)
}

// minPoolForPinned is the smallest pool that pins connections: three
// pinned leave at least five for the API, the dashboard and the workers.
const minPoolForPinned = 8
