package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockKey is the pg_advisory_lock key held while migrating, so that
// several instances starting at once apply each migration exactly once.
const migrationLockKey = 0x7061796d656e7473 // "payments"

// Migrate applies every pending migration under a session-level advisory lock.
// A migration is marked applied only after it succeeds. It returns the names
// of the migrations it applied.
func Migrate(ctx context.Context, db *bun.DB) ([]string, error) {
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(migrationFiles); err != nil {
		return nil, fmt.Errorf("store: discover migrations: %w", err)
	}

	// The lock belongs to a session, so hold it on one pinned connection.
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", int64(migrationLockKey)); err != nil {
		return nil, fmt.Errorf("store: migrate: take lock: %w", err)
	}
	defer func() {
		// A fresh context: the unlock must run even if ctx was canceled.
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(?)", int64(migrationLockKey))
	}()

	migrator := migrate.NewMigrator(db, migrations, migrate.WithMarkAppliedOnSuccess(true))
	var applied []string
	// A database with nothing pending is left as it is: the service's own
	// role (no DDL but its history partitions) starts on it; a pending
	// migration needs the owner's (MIGRATE_DATABASE_URL).
	if status, err := migrator.MigrationsWithStatus(ctx); err != nil || len(status.Unapplied()) > 0 {
		if err := migrator.Init(ctx); err != nil {
			return nil, fmt.Errorf("store: migrate: init: %w", err)
		}
		group, err := migrator.Migrate(ctx)
		if err != nil {
			return nil, fmt.Errorf("store: migrate: %w", err)
		}
		for _, m := range group.Migrations {
			applied = append(applied, m.Name+"_"+m.Comment)
		}
	}
	// The months' partitions of the history tables, for a database not
	// served for a while (the maintenance job keeps them ahead after).
	now := time.Now()
	if err := ensurePartitions(ctx, conn, now, now.AddDate(0, MonthsAhead, 0)); err != nil {
		return applied, err
	}
	return applied, nil
}

// MigrationFiles exposes the embedded migrations (tests key their template
// database on their content).
func MigrationFiles() fs.FS { return migrationFiles }
