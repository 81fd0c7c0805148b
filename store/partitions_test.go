package store_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/migrate"

	"payments/store"
	"payments/store/ids"
	"payments/store/storetest"
)

// Migration 030's id_floor, which bounds the monthly partitions, is ids.Floor.
func TestIDFloorInSQLIsTheGoOne(t *testing.T) {
	t.Parallel()
	db := storetest.DB(t)
	for _, at := range []time.Time{
		time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 999e6, time.UTC),
		time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		var got string
		require.NoError(t, db.NewRaw("SELECT id_floor('evt', ?)", at).Scan(context.Background(), &got))
		require.Equal(t, ids.Floor(ids.PrefixEvent, at), got, at)
		// Every id made in the millisecond is at least the floor, and the
		// floor of the next one is past them.
		made := ids.AtSeq(ids.PrefixEvent, at, ^uint64(0))
		require.True(t, got <= made && made < ids.Floor(ids.PrefixEvent, at.Add(time.Millisecond)))
	}
}

// Migration 030 on a database that has history keeps every row: each old
// table becomes the partition of every id before next month, the months
// after it are made, and the service writes and reads through them.
func TestPartitioningKeepsExistingHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.UnmigratedURL(t)
	db, err := store.Open(ctx, url, 2)
	require.NoError(t, err)
	defer db.Close()

	// Every migration before 030, as bun would have applied them.
	migrator := migrate.NewMigrator(db, migrate.NewMigrations())
	require.NoError(t, migrator.Init(ctx))
	files, err := fs.Glob(store.MigrationFiles(), "migrations/*.up.sql")
	require.NoError(t, err)
	for _, f := range files {
		name := strings.TrimPrefix(f, "migrations/")
		if name >= "030" {
			break
		}
		sql, err := fs.ReadFile(store.MigrationFiles(), f)
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, string(sql))
		require.NoError(t, err, name)
		_, err = db.ExecContext(ctx, "INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES (?, 1, now())", name[:3])
		require.NoError(t, err)
	}
	_, err = db.ExecContext(ctx, `
		INSERT INTO accounts (id, name, email, fee_bps, fee_fixed_cents, created_at) VALUES ('acct_1', 'Loja', 'loja@example.com', 0, 0, now());
		INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at)
			VALUES (?, 'acct_1', false, 'payment.created', 'p1', '{}', now());`, ids.New(ids.PrefixEvent))
	require.NoError(t, err)

	applied, err := store.Migrate(ctx, db)
	require.NoError(t, err)
	require.Equal(t, "030_history_partitions", applied[0], "every later one after it")
	var parts []string
	require.NoError(t, db.NewRaw(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'events'::regclass ORDER BY 1`).Scan(ctx, &parts))
	next := time.Now().UTC().AddDate(0, 0, -time.Now().UTC().Day()+1).AddDate(0, 1, 0)
	require.Equal(t, "events_before_"+next.Format("2006_01"), parts[len(parts)-1])
	require.Equal(t, "events_"+next.Format("2006_01"), parts[0])
	var n int
	require.NoError(t, db.NewRaw("SELECT count(*) FROM events").Scan(ctx, &n))
	require.Equal(t, 1, n)
	// Deliveries and attempts had none: they start at this month.
	require.NoError(t, db.NewRaw(`SELECT count(*) FROM pg_inherits WHERE inhparent = 'delivery_attempts'::regclass`).Scan(ctx, &n))
	require.Equal(t, store.MonthsAhead+1, n)
}
