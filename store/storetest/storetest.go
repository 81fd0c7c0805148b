// Package storetest gives each test its own PostgreSQL database, cloned from
// a template that is migrated once, so tests run in parallel on real data.
package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"payments/store"
)

// EnvDatabaseURL names the variable holding the test server's admin URL;
// `make test` sets it to a private server it starts.
const EnvDatabaseURL = "TEST_DATABASE_URL"

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
	// createMu serializes CREATE DATABASE ... TEMPLATE within this process;
	// PostgreSQL refuses concurrent copies of one template.
	createMu sync.Mutex
)

// AdminURL returns the test server URL or fails the test.
func AdminURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvDatabaseURL)
	if u == "" {
		t.Fatalf("%s is not set: run the suite with `make test`, which starts a private PostgreSQL", EnvDatabaseURL)
	}
	return u
}

// URL returns the URL of a fresh, migrated, empty database that is dropped
// when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	admin := AdminURL(t)
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(context.Background(), admin) })
	if templateErr != nil {
		t.Fatalf("storetest: template database: %v", templateErr)
	}
	// FILE_COPY: PostgreSQL 15's default (WAL_LOG) writes the template's
	// every page to the WAL, 5 MB a database, which the standby `make
	// test` runs would replay behind by minutes over a whole suite.
	return newDatabase(t, admin, "TEMPLATE "+templateName+" STRATEGY FILE_COPY")
}

// ServiceRole is the role the service logs in as in tests (and in `make
// run`): a member of payments_service (migration 042), not the tables'
// owner. The suite's servers run as it, so a grant the service lacks fails
// the suite, and what it must not do (change the audit trail) is refused.
const ServiceRole = "payments_app"

// ServiceURL returns the URL of a fresh, migrated, empty database (see
// URL) as the service's role, ServiceRole; its owner's is URL's.
func ServiceURL(t testing.TB) string {
	t.Helper()
	return AsService(t, URL(t))
}

// AsService is dsn with the service's role as its user.
func AsService(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	u.User = url.User(ServiceRole)
	return u.String()
}

// UnmigratedURL returns the URL of a fresh database with no tables at all.
func UnmigratedURL(t testing.TB) string {
	t.Helper()
	return newDatabase(t, AdminURL(t), "")
}

func newDatabase(t testing.TB, admin, options string) string {
	t.Helper()
	ctx := context.Background()
	name := "t_" + randomHex(8)
	db := mustOpen(t, admin)
	defer db.Close()
	createMu.Lock()
	_, err := db.ExecContext(ctx, fmt.Sprintf("CREATE DATABASE %s %s", name, options))
	createMu.Unlock()
	if err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() {
		db := mustOpen(t, admin)
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("storetest: drop database %s: %v", name, err)
		}
	})
	return withDatabase(admin, name)
}

// DB opens a fresh database (see URL) as the service's role, as the
// service opens its own, and closes it when the test ends.
func DB(t testing.TB) *bun.DB {
	t.Helper()
	db, err := store.Open(context.Background(), ServiceURL(t), 10)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// ensureTemplate creates (once per migration set, shared by every test
// process) a migrated database to clone. It is built under a temporary name
// and renamed when complete, so a crashed build is never used.
func ensureTemplate(ctx context.Context, admin string) (string, error) {
	// The month too: the template's history partitions start at the month
	// it was migrated in (migration 030).
	name := "payments_tmpl_" + migrationsHash() + "_" + time.Now().UTC().Format("200601")
	db, err := store.Open(ctx, admin, 2)
	if err != nil {
		return "", err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(7437467)"); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(7437467)") //nolint:errcheck
	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, ensureServiceRole(ctx, conn)
	}
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	tdb, err := store.Open(ctx, withDatabase(admin, building), 2)
	if err != nil {
		return "", err
	}
	_, err = store.Migrate(ctx, tdb)
	_ = tdb.Close()
	if err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", err
	}
	return name, ensureServiceRole(ctx, conn)
}

// ensureServiceRole makes ServiceRole, a login member of payments_service
// (which the migrations made), as `make run` does for its database.
func ensureServiceRole(ctx context.Context, conn bun.Conn) error {
	_, err := conn.ExecContext(ctx, `DO $$ BEGIN
		IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '`+ServiceRole+`') THEN
			CREATE ROLE `+ServiceRole+` LOGIN;
		END IF;
	END $$`)
	if err == nil {
		_, err = conn.ExecContext(ctx, "GRANT payments_service TO "+ServiceRole)
	}
	if err != nil {
		return fmt.Errorf("storetest: the service's role: %w", err)
	}
	return nil
}

// migrationsHash names the template after the migration files' content, so a
// new migration gets a new template.
func migrationsHash() string {
	h := sha256.New()
	_ = fs.WalkDir(store.MigrationFiles(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(store.MigrationFiles(), path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func mustOpen(t testing.TB, dsn string) *bun.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, 1)
	if err != nil {
		t.Fatalf("storetest: open admin: %v", err)
	}
	return db
}

func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(fmt.Sprintf("storetest: %s is not a URL", EnvDatabaseURL))
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
