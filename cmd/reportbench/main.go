// Command reportbench measures the report builder on a ledger of a given
// size (default: 1,000,000 entries, the ledger of 500,000 paid charges in
// one month): for each format it builds the month's ledger report in a
// process of its own and reports the time, the process's peak RSS
// (VmHWM) and the longest transaction open in the database meanwhile.
// `make bench-reports` runs it; BENCHMARKS.md has its figures.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"payments/dispatcher/reports"
	"payments/store"
	"payments/store/ids"
)

func main() {
	adminURL := flag.String("admin-url", os.Getenv("TEST_DATABASE_URL"), "PostgreSQL URL allowed to CREATE DATABASE")
	entries := flag.Int("entries", 1_000_000, "ledger entries to report (half payments, half their fees)")
	formats := flag.String("formats", "csv,xlsx,ofx", "formats to build, comma-separated")
	build := flag.String("build", "", "internal: build the pending reports of this database URL and print the figures")
	keep := flag.Bool("keep", false, "keep the database, for EXPLAIN")
	flag.Parse()
	if *build != "" {
		if err := buildOnce(*build); err != nil {
			log.Fatalf("reportbench: %v", err)
		}
		return
	}
	if *adminURL == "" {
		log.Fatal("reportbench: set TEST_DATABASE_URL or -admin-url (make bench-reports does)")
	}
	if err := run(*adminURL, *entries, strings.Split(*formats, ","), *keep); err != nil {
		log.Fatalf("reportbench: %v", err)
	}
}

func run(adminURL string, entries int, formats []string, keep bool) error {
	ctx := context.Background()
	dbURL, drop, err := freshDatabase(ctx, adminURL)
	if err != nil {
		return err
	}
	if keep {
		log.Printf("keeping %s", dbURL)
	} else {
		defer drop()
	}
	db, err := store.Open(ctx, dbURL, 4)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := store.Migrate(ctx, db); err != nil {
		return err
	}
	st, err := store.New(db, store.Options{SecretKey: make([]byte, 32), Charges: store.Charges{BaseURL: "http://127.0.0.1:8080"}})
	if err != nil {
		return err
	}
	acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja Grande", Email: "grande@example.com", FeeBPS: 99})
	if err != nil {
		return err
	}
	start := time.Now()
	if err := load(ctx, dbURL, acct.ID, entries/2); err != nil {
		return err
	}
	log.Printf("loaded %d payments and %d ledger entries in %s", entries/2, entries/2*2, time.Since(start).Round(time.Second))
	scope := store.Scope{AccountID: acct.ID}
	fmt.Printf("| format | rows | file | build time | rows/s | peak RSS | longest open transaction |\n|---|---|---|---|---|---|---|\n")
	for _, format := range formats {
		r, err := st.CreateReport(ctx, store.NewReport{Scope: scope, Type: store.ReportLedger, Format: format,
			From: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), TimeZone: store.DefaultTimeZone})
		if err != nil {
			return err
		}
		longest, stop := watchTransactions(ctx, dbURL)
		out, err := exec.Command(os.Args[0], "-build", dbURL).CombinedOutput()
		stop()
		if err != nil {
			return fmt.Errorf("build %s: %w: %s", format, err, out)
		}
		var ms, rssKB int64
		if _, err := fmt.Sscanf(lastLine(string(out)), "built ms=%d rss_kb=%d", &ms, &rssKB); err != nil {
			return fmt.Errorf("build %s: %q: %w", format, out, err)
		}
		done, err := st.Report(ctx, scope, r.ID)
		if err != nil {
			return err
		}
		if done.Status != store.ReportReady {
			return fmt.Errorf("build %s: report %s", format, done.Status)
		}
		rows := *done.RowCount
		fmt.Printf("| %s | %d | %.1f MB | %.1f s | %.0f | %.0f MB | %s |\n", format, rows, float64(*done.SizeBytes)/1e6,
			float64(ms)/1000, float64(rows)/(float64(ms)/1000), float64(rssKB)/1024, longest().Round(time.Millisecond))
	}
	return nil
}

// load writes payments paid in January 2026 (Brasília), with their
// end-to-end notifications and ledger entries (the payment and its fee),
// as the service writes them, by COPY.
func load(ctx context.Context, dbURL, accountID string, payments int) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	start := time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC) // midnight in Brasília
	// Paid 30 s after it was made, every payment's entries inside January.
	step := (31*24*time.Hour - time.Minute) / time.Duration(payments)
	at := func(i int) time.Time { return start.Add(time.Duration(i) * step).Truncate(time.Millisecond) }
	paymentIDs := make([]uuid.UUID, payments)
	for i := range paymentIDs {
		paymentIDs[i] = ids.NewPayment(at(i))
	}
	id := func(i int) uuid.UUID { return paymentIDs[i] }
	amount := func(i int) int64 { return int64(1_000 + i%50_000) }
	fee := func(i int) int64 { return amount(i) * 99 / 10_000 }
	txid := func(i int) string { return fmt.Sprintf("bench%027d", i) }
	tables := []struct {
		name    string
		columns []string
		row     func(i int) [][]any
	}{
		{"payments", []string{"id", "account_id", "livemode", "status", "amount_cents", "currency", "payment_method", "external_id",
			"metadata", "correlation_id", "fee_cents", "br_code", "qr_code_url", "checkout_url", "created_at", "updated_at", "expires_at",
			"paid_at", "amount_paid_cents"}, func(i int) [][]any {
			paid := at(i).Add(30 * time.Second)
			return [][]any{{id(i), accountID, false, store.StatusPaid, amount(i), "BRL", "pix", fmt.Sprintf("pedido-%d", i), "{}", txid(i),
				fee(i), "x", "http://x/qr.png", "http://x/pay", at(i), paid, at(i).Add(time.Hour), paid, amount(i)}}
		}},
		{"psp_notifications", []string{"end_to_end_id", "txid", "amount_cents", "settled_at", "payment_id", "outcome", "raw", "received_at"},
			func(i int) [][]any {
				paid := at(i).Add(30 * time.Second)
				return [][]any{{fmt.Sprintf("E00000000%s%011d", paid.Format("200601021504"), i), txid(i), amount(i), paid, id(i),
					store.PixPaid, "{}", paid}}
			}},
		{"ledger_entries", []string{"account_id", "livemode", "balance", "type", "amount_cents", "source_id", "created_at"},
			func(i int) [][]any {
				paid := at(i).Add(30 * time.Second)
				return [][]any{{accountID, false, store.BalanceAvailable, store.EntryPayment, amount(i), id(i).String(), paid},
					{accountID, false, store.BalanceAvailable, store.EntryFee, -fee(i), id(i).String(), paid}}
			}},
	}
	for _, t := range tables {
		if _, err := pool.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, &copyRows{n: payments, row: t.row}); err != nil {
			return fmt.Errorf("copy %s: %w", t.name, err)
		}
	}
	_, err = pool.Exec(ctx, "ANALYZE")
	return err
}

// copyRows streams a table's rows to COPY: row makes payment i's.
type copyRows struct {
	n, i  int
	queue [][]any
	row   func(i int) [][]any
}

func (r *copyRows) Next() bool {
	for len(r.queue) == 0 {
		if r.i >= r.n {
			return false
		}
		r.queue = r.row(r.i)
		r.i++
	}
	return true
}

func (r *copyRows) Values() ([]any, error) {
	v := r.queue[0]
	r.queue = r.queue[1:]
	return v, nil
}

func (r *copyRows) Err() error { return nil }

// buildOnce is the child: it builds every pending report of dbURL and
// prints how long that took and the process's peak RSS.
func buildOnce(dbURL string) error {
	ctx := context.Background()
	db, err := store.Open(ctx, dbURL, 4)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := store.New(db, store.Options{SecretKey: make([]byte, 32)})
	if err != nil {
		return err
	}
	b := reports.New(reports.Config{}, st, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	start := time.Now()
	for {
		built, err := b.BuildNext(ctx)
		if err != nil {
			return err
		}
		if !built {
			break
		}
	}
	fmt.Printf("built ms=%d rss_kb=%d\n", time.Since(start).Milliseconds(), peakRSS())
	return nil
}

// peakRSS is the process's VmHWM in kB.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "VmHWM: %d kB", &kb); err == nil {
			return kb
		}
	}
	return 0
}

// watchTransactions samples the database's open transactions (of clients:
// autovacuum after the load is not the builder's) every 50 ms until stop,
// and returns the longest seen.
func watchTransactions(ctx context.Context, dbURL string) (longest func() time.Duration, stop func()) {
	pool, err := pgxpool.New(ctx, dbURL)
	var mu sync.Mutex
	var max time.Duration
	done := make(chan struct{})
	var wg sync.WaitGroup
	if err == nil {
		wg.Go(func() {
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				var d time.Duration
				_ = pool.QueryRow(ctx, `SELECT coalesce(max(now() - xact_start), '0') FROM pg_stat_activity
					WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
					AND backend_type = 'client backend'`).Scan(&d)
				mu.Lock()
				max = maxDuration(max, d)
				mu.Unlock()
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		})
	}
	return func() time.Duration { mu.Lock(); defer mu.Unlock(); return max }, func() {
		close(done)
		wg.Wait()
		if pool != nil {
			pool.Close()
		}
	}
}

func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// freshDatabase makes a database for the run and returns its URL and
// how to drop it.
func freshDatabase(ctx context.Context, adminURL string) (string, func(), error) {
	admin, err := pgxpool.New(ctx, adminURL)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("reportbench_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		_, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	}, nil
}
