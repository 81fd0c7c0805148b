package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"payments/dispatcher/maintenance"
	"payments/store"
)

// retention measures what the maintenance job does when a month of
// delivery attempts passes retention at this size: a database of its own
// (the loaded one keeps its history) gets the attempts a month holds at
// sz's rate, in their month's partition three months back, and the job
// drops it. It reports the rows, their size on disk, the time, and the
// dead rows left.
func retention(ctx context.Context, adminURL string, sz size) (string, error) {
	dbURL, err := database(ctx, adminURL, fmt.Sprintf("scale_retention_%d", sz.Payments), true)
	if err != nil {
		return "", err
	}
	db, err := store.Open(ctx, dbURL, 4)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := store.Migrate(ctx, db); err != nil {
		return "", err
	}
	st, err := store.New(db, store.Options{SecretKey: make([]byte, 32)})
	if err != nil {
		return "", err
	}
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -3, 0)
	if err := st.EnsurePartitions(ctx, month, now); err != nil {
		return "", err
	}
	// The month's share of sz's history, spread over the month, with the
	// shapes of the loaded attempts.
	perMonth := sz.Payments * 30 / sz.Days
	h := &history{sz: size{Payments: perMonth, Accounts: 1, Days: 30}, accounts: []string{"acct_retention"},
		webhooks: []string{"wh_retention"}, start: month.Add(time.Hour), end: month.AddDate(0, 1, 0).Add(-time.Hour)}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return "", err
	}
	defer pool.Close()
	began := time.Now()
	n, err := pool.CopyFrom(ctx, pgx.Identifier{"delivery_attempts"}, []string{"id", "delivery_id", "webhook_id", "event_id",
		"event_type", "attempt", "request_url", "request_headers", "request_body", "response_status", "response_headers",
		"response_body", "duration_ms", "created_at"}, &rows{n: perMonth, next: h.attempts})
	if err != nil {
		return "", fmt.Errorf("copy attempts: %w", err)
	}
	elapsed(fmt.Sprintf("a month of attempts: %d rows", n), began)
	part := "delivery_attempts_" + month.Format("2006_01")
	var bytes int64
	if err := pool.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", part).Scan(&bytes); err != nil {
		return "", err
	}

	began = time.Now()
	dropped := maintenance.KeepPartitions(ctx, st, maintenance.Config{AttemptRetention: 40 * 24 * time.Hour}, now,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	took := time.Since(began)
	// The empty months after it, past retention too, go with it.
	if !slices.Contains(dropped, part) {
		return "", fmt.Errorf("retention dropped %v, not %s", dropped, part)
	}
	var dead int64
	if _, err := pool.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
		return "", err
	}
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables
		WHERE relname LIKE 'delivery_attempts%'`).Scan(&dead); err != nil {
		return "", err
	}
	return fmt.Sprintf("\nRetention of a month of delivery attempts (%d rows, %.1f GB on disk): %s dropped (%d partitions of the attempts in all) in %.2f s, %d dead rows left\n",
		n, float64(bytes)/(1<<30), part, len(dropped), took.Seconds(), dead), nil
}
