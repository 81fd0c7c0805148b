package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ReportSchedule is an account's daily reconciliation report in one mode:
// the ledger of each day, in Format, made shortly after that day ends in
// the account's time zone.
type ReportSchedule struct {
	bun.BaseModel `bun:"table:report_schedules"`

	AccountID string     `bun:"account_id,pk"`
	Livemode  bool       `bun:"livemode,pk"`
	Format    string     `bun:"format"`
	LastDate  *time.Time `bun:"last_date,type:date"`
	CreatedAt time.Time  `bun:"created_at"`
	UpdatedAt time.Time  `bun:"updated_at"`
}

// ReportSchedule returns the scope's daily report; none is ErrNotFound.
func (s *Store) ReportSchedule(ctx context.Context, scope Scope) (*ReportSchedule, error) {
	rs := new(ReportSchedule)
	err := s.idb(ctx).NewSelect().Model(rs).Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: report schedule: %w", translate(err))
	}
	return rs, nil
}

// SetReportSchedule turns the scope's daily report on in format, or off
// with format "". Turned on, its first report is of the day it was turned
// on (made after that day ends): no backlog of the days before.
func (s *Store) SetReportSchedule(ctx context.Context, scope Scope, format, zone string) error {
	db := s.idb(ctx)
	if format == "" {
		_, err := db.NewDelete().Model((*ReportSchedule)(nil)).
			Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: report schedule: %w", err)
		}
		return nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrUnknownTimeZone, zone)
	}
	now := s.Now()
	local := now.In(loc)
	yesterday := time.Date(local.Year(), local.Month(), local.Day()-1, 0, 0, 0, 0, time.UTC)
	rs := &ReportSchedule{AccountID: scope.AccountID, Livemode: scope.Livemode, Format: format, LastDate: &yesterday,
		CreatedAt: now, UpdatedAt: now}
	_, err = db.NewInsert().Model(rs).
		On("CONFLICT (account_id, livemode) DO UPDATE").Set("format = EXCLUDED.format").Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: report schedule: %w", err)
	}
	return nil
}

// ScheduleDailyReports makes the daily reports due: for each schedule
// whose account's day after last_date has ended, the ledger report of
// that day (one at a time per schedule, so an outage of days catches up
// a day a run). It returns how many it made, at most limit.
func (s *Store) ScheduleDailyReports(ctx context.Context, limit int) (int, error) {
	type due struct {
		AccountID string    `bun:"account_id"`
		Livemode  bool      `bun:"livemode"`
		Format    string    `bun:"format"`
		Day       time.Time `bun:"day,type:date"`
		TimeZone  string    `bun:"time_zone"`
	}
	var rows []due
	// The day after last_date is due once it has ended in the zone: today
	// there is later than it.
	err := s.db.NewRaw(`SELECT rs.account_id, rs.livemode, rs.format, rs.last_date + 1 AS day, a.time_zone
		FROM report_schedules rs JOIN accounts a ON a.id = rs.account_id
		WHERE rs.last_date + 1 < (?0::timestamptz AT TIME ZONE a.time_zone)::date
		ORDER BY rs.last_date LIMIT ?1`, s.Now(), limit).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: due daily reports: %w", err)
	}
	made := 0
	for _, d := range rows {
		err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			r, err := s.newReport(NewReport{Scope: Scope{AccountID: d.AccountID, Livemode: d.Livemode}, Type: ReportLedger,
				Format: d.Format, From: d.Day, To: d.Day, TimeZone: d.TimeZone}, true)
			if err != nil {
				return err
			}
			res, err := tx.NewInsert().Model(r).On("CONFLICT (account_id, livemode, from_date) WHERE scheduled DO NOTHING").Exec(ctx)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				made++
			}
			_, err = tx.NewUpdate().Model((*ReportSchedule)(nil)).Set("last_date = ?", d.Day).Set("updated_at = ?", r.CreatedAt).
				Where("account_id = ? AND livemode = ? AND last_date < ?", d.AccountID, d.Livemode, d.Day).Exec(ctx)
			return err
		})
		if err != nil {
			return made, fmt.Errorf("store: schedule daily report: %w", err)
		}
	}
	return made, nil
}
