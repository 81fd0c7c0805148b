package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/store/apimodel"
	"payments/store/ids"
	"payments/store/jsonw"
)

// Report types and formats. OFX (a bank statement) is the ledger's only.
const (
	ReportPayments = "payments"
	ReportRefunds  = "refunds"
	ReportLedger   = "ledger"
	ReportPayouts  = "payouts"

	FormatCSV  = "csv"
	FormatXLSX = "xlsx"
	FormatOFX  = "ofx"

	// A CSV's dialect: RFC 4180 with decimal points and ISO 8601 (the
	// API's default), or as Excel in pt-BR reads one (a BOM, ";", decimal
	// commas, dd/mm/aaaa, Portuguese headers).
	CSVRFC4180 = "rfc4180"
	CSVExcelBR = "excel_br"

	ReportPending = "pending"
	ReportReady   = "ready"
	ReportFailed  = "failed"

	EventReportReady  = "report.ready"
	EventReportFailed = "report.failed"
)

var (
	ReportTypes    = []string{ReportPayments, ReportRefunds, ReportLedger, ReportPayouts}
	ReportFormats  = []string{FormatCSV, FormatXLSX, FormatOFX}
	CSVDialects    = []string{CSVRFC4180, CSVExcelBR}
	ReportStatuses = []string{ReportPending, ReportReady, ReportFailed}
)

// ReportFileLife is how long a ready report's file is served.
const ReportFileLife = 7 * 24 * time.Hour

// MaxReportDays is the longest period one report covers.
const MaxReportDays = 366

// ReportPartSize is the most a report's file part holds: the builder keeps
// one part in memory at a time.
const ReportPartSize = 1 << 20

// ErrReportExpired is a report whose file is no longer kept;
// ErrReportNotReady one whose file is not made (yet, or ever).
var (
	ErrReportExpired  = errors.New("store: report expired")
	ErrReportNotReady = errors.New("store: report not ready")
)

// Report is a file of an account's rows over days of its time zone.
type Report struct {
	bun.BaseModel `bun:"table:reports"`

	ID            string     `bun:"id,pk"`
	AccountID     string     `bun:"account_id"`
	Livemode      bool       `bun:"livemode"`
	Type          string     `bun:"type"`
	Format        string     `bun:"format"`
	CSVDialect    *string    `bun:"csv_dialect"`
	FromDate      time.Time  `bun:"from_date,type:date"`
	ToDate        time.Time  `bun:"to_date,type:date"`
	TimeZone      string     `bun:"time_zone"`
	PeriodStart   time.Time  `bun:"period_start"`
	PeriodEnd     time.Time  `bun:"period_end"`
	Scheduled     bool       `bun:"scheduled"`
	Status        string     `bun:"status"`
	RowCount      *int64     `bun:"row_count"`
	SizeBytes     *int64     `bun:"size_bytes"`
	SHA256        *string    `bun:"sha256"`
	FailureReason *string    `bun:"failure_reason"`
	FileURL       string     `bun:"file_url"`
	Attempts      int        `bun:"attempts"`
	LeasedUntil   *time.Time `bun:"leased_until"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	CompletedAt   *time.Time `bun:"completed_at"`
	ExpiresAt     *time.Time `bun:"expires_at"`
}

// Scope is the account and mode the report belongs to.
func (r *Report) Scope() Scope { return Scope{AccountID: r.AccountID, Livemode: r.Livemode} }

// Expired says whether the report's file is gone at now.
func (r *Report) Expired(now time.Time) bool { return r.ExpiresAt != nil && !now.Before(*r.ExpiresAt) }

// ContentType is the file's media type.
func (r *Report) ContentType() string {
	switch r.Format {
	case FormatXLSX:
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case FormatOFX:
		return "application/x-ofx"
	}
	return "text/csv; charset=utf-8"
}

// FileName is the name the file is downloaded with.
func (r *Report) FileName() string {
	name := fmt.Sprintf("%s-%s", r.Type, r.FromDate.Format(time.DateOnly))
	if !r.ToDate.Equal(r.FromDate) {
		name += "-a-" + r.ToDate.Format(time.DateOnly)
	}
	return name + "." + r.Format
}

// MarshalJSON renders the public representation: file_url only while the
// file is there to serve.
func (r *Report) MarshalJSON() ([]byte, error) {
	out := apimodel.Report{
		ID: r.ID, Object: "report", Livemode: r.Livemode, Type: r.Type, Format: r.Format, CSVDialect: r.CSVDialect, Status: r.Status,
		From: r.FromDate.Format(time.DateOnly), To: r.ToDate.Format(time.DateOnly), TimeZone: r.TimeZone,
		PeriodStart: jsonw.FormatTime(r.PeriodStart), PeriodEnd: jsonw.FormatTime(r.PeriodEnd), Scheduled: r.Scheduled,
		RowCount: r.RowCount, SizeBytes: r.SizeBytes, SHA256: r.SHA256, FailureReason: r.FailureReason,
		CreatedAt: jsonw.FormatTime(r.CreatedAt), UpdatedAt: jsonw.FormatTime(r.UpdatedAt),
		CompletedAt: jsonw.FormatTimePtr(r.CompletedAt), ExpiresAt: jsonw.FormatTimePtr(r.ExpiresAt),
	}
	if r.Status == ReportReady {
		out.FileURL = &r.FileURL
	}
	return json.Marshal(out)
}

// NewReport is what a report is asked for with: its days (dates at
// midnight UTC, both included) in the time zone named.
type NewReport struct {
	Scope  Scope
	Type   string
	Format string
	// CSVDialect is a CSV's (CSVRFC4180 when empty); other formats have none.
	CSVDialect string
	From, To   time.Time
	TimeZone   string
}

// reportPeriod is the instants [start, end) the days from..to cover in
// zone, end capped at now: a report never promises rows not yet written.
func reportPeriod(from, to time.Time, zone *time.Location, now time.Time) (start, end time.Time) {
	start = time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, zone)
	end = time.Date(to.Year(), to.Month(), to.Day()+1, 0, 0, 0, 0, zone)
	if end.After(now) {
		end = now
	}
	return start.UTC(), end.UTC()
}

// CreateReport stores a pending report of in, for a builder to make.
func (s *Store) CreateReport(ctx context.Context, in NewReport) (*Report, error) {
	r, err := s.newReport(in, false)
	if err != nil {
		return nil, err
	}
	if _, err := s.idb(ctx).NewInsert().Model(r).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: create report: %w", translate(err))
	}
	return r, nil
}

func (s *Store) newReport(in NewReport, scheduled bool) (*Report, error) {
	zone, err := time.LoadLocation(in.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTimeZone, in.TimeZone)
	}
	now := s.Now()
	id := ids.New(ids.PrefixReport)
	start, end := reportPeriod(in.From, in.To, zone, now)
	var dialect *string
	if in.Format == FormatCSV {
		dialect = ptr(cmp.Or(in.CSVDialect, CSVRFC4180))
	}
	return &Report{
		ID: id, AccountID: in.Scope.AccountID, Livemode: in.Scope.Livemode, Type: in.Type, Format: in.Format, CSVDialect: dialect,
		FromDate: in.From, ToDate: in.To, TimeZone: in.TimeZone, PeriodStart: start, PeriodEnd: end,
		Scheduled: scheduled, Status: ReportPending, FileURL: s.charges.BaseURL + "/api/v1/reports/" + id + "/file",
		CreatedAt: now, UpdatedAt: now,
	}, nil
}

// Report returns the scope's report id.
func (s *Store) Report(ctx context.Context, scope Scope, id string) (*Report, error) {
	r := new(Report)
	err := s.idb(ctx).NewSelect().Model(r).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: report: %w", translate(err))
	}
	return r, nil
}

// ListReports pages the scope's reports of types, newest first.
func (s *Store) ListReports(ctx context.Context, p IDListParams, types []string) ([]Report, bool, error) {
	out := []Report{}
	if len(types) == 0 {
		return out, false, nil
	}
	hasMore, err := listByID(ctx, s.idb(ctx).NewSelect().Model(&out).Where("type IN (?)", bun.List(types)), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list reports: %w", err)
	}
	return out, hasMore, nil
}

// ReportLease is how long a builder holds a report it took; one that
// stops (a crash) leaves it to another after.
const ReportLease = 10 * time.Minute

// MaxReportAttempts is how many builds a report gets before it fails.
const MaxReportAttempts = 3

// ClaimReport takes the oldest pending report no builder holds, for
// ReportLease, and drops the parts an earlier build left; none is
// ErrNotFound.
func (s *Store) ClaimReport(ctx context.Context) (*Report, error) {
	r := new(Report)
	now := s.Now()
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		err := tx.NewRaw(`UPDATE reports SET leased_until = ?0, attempts = attempts + 1, updated_at = ?1
			WHERE id = (SELECT id FROM reports WHERE status = 'pending' AND (leased_until IS NULL OR leased_until < ?1)
				ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
			RETURNING *`, now.Add(ReportLease), now).Scan(ctx, r)
		if err != nil {
			return err
		}
		_, err = tx.NewDelete().Table("report_parts").Where("report_id = ?", r.ID).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim report: %w", translate(err))
	}
	return r, nil
}

// WriteReportPart stores part seq of report id's file, in a statement of
// its own.
func (s *Store) WriteReportPart(ctx context.Context, id string, seq int, data []byte) error {
	_, err := s.db.NewRaw(`INSERT INTO report_parts (report_id, seq, data) VALUES (?, ?, ?)`, id, seq, data).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: report part: %w", err)
	}
	return nil
}

// ReportFile is what a built file was: its rows, bytes and SHA-256 (hex).
type ReportFile struct {
	Rows   int64
	Size   int64
	SHA256 string
}

// FinishReport marks report id ready with its file, kept for
// ReportFileLife, and records report.ready.
func (s *Store) FinishReport(ctx context.Context, id string, f ReportFile) (*Report, error) {
	return s.endReport(ctx, id, func(q *bun.UpdateQuery, now time.Time) *bun.UpdateQuery {
		return q.Set("status = ?", ReportReady).Set("row_count = ?", f.Rows).Set("size_bytes = ?", f.Size).
			Set("sha256 = ?", f.SHA256).Set("expires_at = ?", now.Add(ReportFileLife))
	}, EventReportReady)
}

// FailReport marks report id failed for reason (words for its owner),
// drops what its builds wrote, and records report.failed.
func (s *Store) FailReport(ctx context.Context, id, reason string) (*Report, error) {
	return s.endReport(ctx, id, func(q *bun.UpdateQuery, _ time.Time) *bun.UpdateQuery {
		return q.Set("status = ?", ReportFailed).Set("failure_reason = ?", reason)
	}, EventReportFailed)
}

// ReleaseReport gives a report whose build stopped short back to the
// queue (with its attempts counted), to be built again after wait.
func (s *Store) ReleaseReport(ctx context.Context, id string, wait time.Duration) error {
	_, err := s.db.NewUpdate().Model((*Report)(nil)).Set("leased_until = ?", s.Now().Add(wait)).
		Where("id = ? AND status = ?", id, ReportPending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: release report: %w", err)
	}
	return nil
}

func (s *Store) endReport(ctx context.Context, id string, set func(*bun.UpdateQuery, time.Time) *bun.UpdateQuery, event string) (*Report, error) {
	r := new(Report)
	now := s.Now()
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().Model(r).Set("leased_until = NULL").Set("updated_at = ?", now).Set("completed_at = ?", now).
			Where("id = ? AND status = ?", id, ReportPending).Returning("*")
		if err := set(q, now).Scan(ctx); err != nil {
			return err
		}
		if r.Status == ReportFailed {
			if _, err := tx.NewDelete().Table("report_parts").Where("report_id = ?", r.ID).Exec(ctx); err != nil {
				return err
			}
		}
		return s.recordEvent(ctx, tx, event, r.AccountID, r.Livemode, r.ID, r, now)
	})
	if err != nil {
		return nil, fmt.Errorf("store: end report: %w", translate(err))
	}
	return r, nil
}

// FileGone says why r's file cannot be served at now, if it cannot: not
// ready (ErrReportNotReady) or past its expiry (ErrReportExpired).
func (r *Report) FileGone(now time.Time) error {
	switch {
	case r.Status != ReportReady:
		return ErrReportNotReady
	case r.Expired(now):
		return ErrReportExpired
	}
	return nil
}

// ReportParts calls fn with each part of the scope's ready report id's
// file, in order, each read in a statement of its own; a file it cannot
// serve is FileGone's error.
func (s *Store) ReportParts(ctx context.Context, r *Report, fn func([]byte) error) error {
	if err := r.FileGone(s.Now()); err != nil {
		return err
	}
	for seq := 0; ; seq++ {
		var data []byte
		err := s.db.NewRaw(`SELECT data FROM report_parts WHERE report_id = ? AND seq = ?`, r.ID, seq).Scan(ctx, &data)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: report part: %w", err)
		}
		if err := fn(data); err != nil {
			return err
		}
	}
}

// PruneReportFiles drops the file parts of up to limit reports past their
// expiry and returns how many parts it dropped.
func (s *Store) PruneReportFiles(ctx context.Context, limit int) (int, error) {
	res, err := s.db.NewRaw(`WITH gone AS (
			SELECT id FROM reports WHERE expires_at <= ? AND EXISTS (SELECT 1 FROM report_parts WHERE report_id = reports.id)
			ORDER BY expires_at LIMIT ?)
		DELETE FROM report_parts WHERE report_id IN (SELECT id FROM gone)`, s.Now(), limit).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: prune report files: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
