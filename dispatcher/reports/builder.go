// Package reports builds the reports accounts ask for (and their daily
// reconciliation reports): CSV, XLSX and OFX files of payments, refunds,
// the ledger and payouts, read a page at a time and written a part at a
// time, so that a report of millions of rows takes bounded memory and
// holds no transaction against the writers.
package reports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"payments/dispatcher/service"
	"payments/store"
)

// Config sets the builder's pace.
type Config struct {
	// Poll is how often the builder looks for pending reports.
	Poll time.Duration
	Now  func() time.Time
}

// Builder builds pending reports one at a time between Start and Stop.
type Builder struct {
	cfg   Config
	store *store.Store
	log   *slog.Logger
	svc   service.Service
}

// New returns a builder; Start runs it.
func New(cfg Config, st *store.Store, log *slog.Logger) *Builder {
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Builder{cfg: cfg, store: st, log: log}
}

// Start builds reports in the background until Stop.
func (b *Builder) Start(ctx context.Context) { b.svc.Start(ctx, b.run) }

// Stop ends the builder; a build under way stops short and its report is
// built again later (by this process or another).
func (b *Builder) Stop() { b.svc.Stop() }

func (b *Builder) run(ctx context.Context) {
	t := time.NewTicker(b.cfg.Poll)
	defer t.Stop()
	for {
		for {
			built, err := b.BuildNext(ctx)
			if err != nil && ctx.Err() == nil {
				b.log.Error("report: build failed", "error", err.Error())
			}
			if !built || ctx.Err() != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// failedReason is a failed report's reason when it is not its size.
const failedReason = "O relatório não pôde ser gerado. Tente de novo mais tarde."

// errTooManyRows is a report whose rows its format cannot hold.
var errTooManyRows = errors.New("reports: too many rows")

// BuildNext builds the oldest pending report, if any, and says whether
// there was one.
func (b *Builder) BuildNext(ctx context.Context) (bool, error) {
	r, err := b.store.ClaimReport(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if r.Attempts > store.MaxReportAttempts {
		// Its builds kept stopping without a word (a process killed while
		// building it, over and over): stop trying.
		_, err := b.store.FailReport(context.WithoutCancel(ctx), r.ID, failedReason)
		return true, err
	}
	start := time.Now()
	file, err := b.build(ctx, r)
	switch {
	case err == nil:
		_, err = b.store.FinishReport(context.WithoutCancel(ctx), r.ID, file)
		if err == nil {
			b.log.Info("report: ready", "report", r.ID, "type", r.Type, "format", r.Format, "rows", file.Rows,
				"bytes", file.Size, "took", time.Since(start).String())
		}
		return true, err
	case ctx.Err() != nil:
		// Stopped: built again after its lease, or sooner by the next start.
		return true, b.store.ReleaseReport(context.WithoutCancel(ctx), r.ID, 0)
	case errors.Is(err, errTooManyRows) || r.Attempts >= store.MaxReportAttempts:
		b.log.Error("report: failed", "report", r.ID, "attempts", r.Attempts, "error", err.Error())
		reason := failedReason
		if errors.Is(err, errTooManyRows) {
			reason = "Linhas demais para uma planilha (máximo de 1.048.575): peça menos dias ou o formato CSV."
		}
		_, ferr := b.store.FailReport(context.WithoutCancel(ctx), r.ID, reason)
		return true, ferr
	default:
		b.log.Warn("report: build failed, will retry", "report", r.ID, "attempts", r.Attempts, "error", err.Error())
		return true, b.store.ReleaseReport(context.WithoutCancel(ctx), r.ID, time.Duration(r.Attempts)*30*time.Second)
	}
}

// sheet is a table's writer in one format.
type sheet interface {
	row(cells []any) error
	close() error
}

func (b *Builder) build(ctx context.Context, r *store.Report) (store.ReportFile, error) {
	out := newParts(ctx, b.store, r.ID)
	rows, err := b.write(ctx, r, out)
	if err != nil {
		return store.ReportFile{}, err
	}
	size, sum, err := out.close()
	if err != nil {
		return store.ReportFile{}, err
	}
	return store.ReportFile{Rows: rows, Size: size, SHA256: sum}, nil
}

func (b *Builder) write(ctx context.Context, r *store.Report, w io.Writer) (int64, error) {
	zone := zoneOf(r)
	if r.Type == store.ReportLedger {
		return b.writeLedger(ctx, r, w, zone)
	}
	src, ok := sources[r.Type]
	if !ok {
		return 0, fmt.Errorf("reports: unknown type %q", r.Type)
	}
	s, err := newSheet(r, w, src.table, zone)
	if err != nil {
		return 0, err
	}
	n, err := src.read(ctx, b.store, r, s.row)
	if err != nil {
		return n, err
	}
	return n, s.close()
}

// sources are the reports other than the ledger: their table and how
// their rows are read.
var sources = map[string]struct {
	table table
	read  func(context.Context, *store.Store, *store.Report, emit) (int64, error)
}{
	store.ReportPayments: {paymentsTable, readPayments},
	store.ReportRefunds:  {refundsTable, readRefunds},
	store.ReportPayouts:  {payoutsTable, readPayouts},
}

func newSheet(r *store.Report, w io.Writer, t table, zone *time.Location) (sheet, error) {
	switch r.Format {
	case store.FormatCSV:
		dialect := store.CSVRFC4180
		if r.CSVDialect != nil {
			dialect = *r.CSVDialect
		}
		return newCSV(w, t, zone, dialect)
	case store.FormatXLSX:
		return newXLSX(w, t, zone)
	}
	return nil, fmt.Errorf("reports: %s is not a format of this report", r.Format)
}

func (b *Builder) writeLedger(ctx context.Context, r *store.Report, w io.Writer, zone *time.Location) (int64, error) {
	openAvailable, openPending, err := b.store.LedgerBalancesBefore(ctx, r, r.PeriodStart)
	if err != nil {
		return 0, err
	}
	opening := [2]int64{openAvailable, openPending}
	if r.Format == store.FormatOFX {
		closing, _, err := b.store.LedgerBalancesBefore(ctx, r, r.PeriodEnd)
		if err != nil {
			return 0, err
		}
		o, err := newOFX(w, r, zone, closing, b.cfg.Now())
		if err != nil {
			return 0, err
		}
		if _, err := readLedger(ctx, b.store, r, opening, o.entry); err != nil {
			return 0, err
		}
		return o.count, o.close()
	}
	s, err := newSheet(r, w, ledgerTable, zone)
	if err != nil {
		return 0, err
	}
	n, err := readLedger(ctx, b.store, r, opening, func(l ledgerLine) error { return s.row(ledgerCells(l)) })
	if err != nil {
		return n, err
	}
	return n, s.close()
}
