// Command scalebench measures the service at size: it loads a database to
// a given number of payments (default 2,000,000 over 1,000 accounts, one
// holding a tenth) with their events, deliveries, attempts, refunds,
// ledger entries and PSP notifications in the real proportions, written
// through the real schema, then times every list, get and search the API,
// the dashboard and the support console answer, one request after another
// (BENCHMARKS.md, "At scale").
//
//	go run ./cmd/scalebench [-payments 2000000] [-accounts 1000] [-requests 40]
//
// A loaded database is kept (scale_<payments>) and reused by the next run
// with the same size, so that a change can be measured without loading
// again; -fresh loads anew.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	adminURL := flag.String("admin-url", os.Getenv("TEST_DATABASE_URL"), "PostgreSQL URL allowed to CREATE DATABASE")
	binary := flag.String("binary", "bin/payments", "the payments binary to measure")
	payments := flag.Int("payments", 2_000_000, "payments to load")
	accounts := flag.Int("accounts", 1000, "accounts they belong to (the first holds a tenth)")
	days := flag.Int("days", 90, "the days of history they spread over")
	requests := flag.Int("requests", 40, "requests timed per endpoint")
	fresh := flag.Bool("fresh", false, "load anew even if a database of this size exists")
	only := flag.String("only", "", "time only the endpoints whose name contains this")
	keep := flag.Bool("retention", true, "also measure retention dropping a month of attempts (in a database of its own)")
	loadgen := flag.String("loadgen", "", "cmd/loadgen's binary: also measure webhook deliveries (end to end at 200 events/s, a backlog's drain) on the loaded database")
	flag.Parse()
	if *adminURL == "" {
		log.Fatal("scalebench: set TEST_DATABASE_URL or -admin-url (make bench-scale does)")
	}
	if err := run(*adminURL, *binary, *loadgen, size{Payments: *payments, Accounts: *accounts, Days: *days}, *requests, *fresh, *only, *keep); err != nil {
		log.Fatalf("scalebench: %v", err)
	}
}

// size is how much history the database holds.
type size struct{ Payments, Accounts, Days int }

func run(adminURL, binary, loadgen string, sz size, requests int, fresh bool, only string, keep bool) error {
	ctx := context.Background()
	name := fmt.Sprintf("scale_%d", sz.Payments)
	dbURL, err := database(ctx, adminURL, name, fresh)
	if err != nil {
		return err
	}
	fx, err := ensureLoaded(ctx, dbURL, binary, sz)
	if err != nil {
		return err
	}
	svc, err := startService(binary, dbURL)
	if err != nil {
		return err
	}
	defer svc.Stop()
	log.Printf("service on %s; timing %d requests per endpoint", svc.BaseURL, requests)
	results, err := measure(svc.BaseURL, fx, requests, only)
	if err != nil {
		return err
	}
	fmt.Print(markdown(sz, results))
	svc.Stop()
	if loadgen != "" && only == "" {
		if err := deliveries(loadgen, binary, adminURL, dbURL, sz); err != nil {
			return fmt.Errorf("deliveries: %w", err)
		}
	}
	if keep && only == "" {
		figure, err := retention(ctx, adminURL, sz)
		if err != nil {
			return fmt.Errorf("retention: %w", err)
		}
		fmt.Print(figure)
	}
	return nil
}

// database returns the URL of the database name, made (empty) unless it
// exists and fresh is false.
func database(ctx context.Context, adminURL, name string, fresh bool) (string, error) {
	admin, err := pgxpool.New(ctx, adminURL)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists && fresh {
		if _, err := admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			return "", err
		}
		exists = false
	}
	if !exists {
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			return "", fmt.Errorf("create database: %w", err)
		}
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	dsn := u.String()
	if !strings.Contains(dsn, "?") {
		dsn += "?sslmode=disable"
	}
	return dsn, nil
}

// elapsed logs how long a step took.
func elapsed(what string, start time.Time) {
	log.Printf("%s in %.1f s", what, time.Since(start).Seconds())
}
