package store

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// History is one of the tables of monthly partitions (migration 030):
// events, deliveries and attempts, partitioned by id, so by the wall
// clock's month (UTC) their ids were made in.
type History struct {
	Table  string
	prefix string
}

// The history tables. Events and deliveries go at EVENT_RETENTION,
// attempts at ATTEMPT_RETENTION.
var (
	HistoryEvents     = History{"events", ids.PrefixEvent}
	HistoryDeliveries = History{"webhook_deliveries", ids.PrefixDelivery}
	HistoryAttempts   = History{"delivery_attempts", ids.PrefixAttempt}
	histories         = []History{HistoryEvents, HistoryDeliveries, HistoryAttempts}
)

// MonthsAhead is how many months past the current one have their
// partitions ready: writes never wait for a partition, and a service that
// did not run for that long makes them as it starts, before it serves.
const MonthsAhead = 1

// EnsurePartitions creates, for every history table, the partitions of
// each month from from's through through's (UTC) that are not there yet.
// A month already covered by the partition of what existed before
// migration 030 is left to it.
func (s *Store) EnsurePartitions(ctx context.Context, from, through time.Time) error {
	return ensurePartitions(ctx, s.db, from, through)
}

func ensurePartitions(ctx context.Context, db bun.IDB, from, through time.Time) error {
	for _, h := range histories {
		parts, err := partitionsOf(ctx, db, h)
		if err != nil {
			return err
		}
		covered := time.Time{}
		for _, p := range parts {
			if p.before && p.end.After(covered) {
				covered = p.end
			}
		}
		for m := monthOf(from); !m.After(monthOf(through)); m = m.AddDate(0, 1, 0) {
			if m.Before(covered) {
				continue
			}
			if _, err := db.ExecContext(ctx, "SELECT create_month_partition(?, ?, ?::date)", h.Table, h.prefix, m.Format(time.DateOnly)); err != nil {
				return fmt.Errorf("store: create %s partition for %s: %w", h.Table, m.Format("2006-01"), err)
			}
		}
	}
	return nil
}

// DropPartitions drops h's partitions whose every id was made before
// before, and returns their names. Each is detached CONCURRENTLY first, so
// readers and writers of the table never wait for the drop; what it frees
// leaves no dead rows behind.
func (s *Store) DropPartitions(ctx context.Context, h History, before time.Time) ([]string, error) {
	parts, err := partitionsOf(ctx, s.db, h)
	if err != nil {
		return nil, err
	}
	var dropped []string
	for _, p := range parts {
		if p.end.After(before) {
			continue
		}
		// A detach interrupted earlier leaves the partition pending: FINALIZE ends it.
		detach := "ALTER TABLE ? DETACH PARTITION ? CONCURRENTLY"
		if p.detaching {
			detach = "ALTER TABLE ? DETACH PARTITION ? FINALIZE"
		}
		if _, err := s.db.ExecContext(ctx, detach, bun.Ident(h.Table), bun.Ident(p.name)); err != nil {
			return dropped, fmt.Errorf("store: detach %s: %w", p.name, err)
		}
		if _, err := s.db.ExecContext(ctx, "DROP TABLE ?", bun.Ident(p.name)); err != nil {
			return dropped, fmt.Errorf("store: drop %s: %w", p.name, err)
		}
		dropped = append(dropped, p.name)
	}
	return dropped, nil
}

// Partitions names h's partitions, oldest first.
func (s *Store) Partitions(ctx context.Context, h History) ([]string, error) {
	parts, err := partitionsOf(ctx, s.db, h)
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.name
	}
	return names, err
}

type partition struct {
	name string
	// end is the start of the first month the partition holds no id of.
	end time.Time
	// before: the partition of every id before end (what existed when
	// migration 030 ran), not one month's.
	before    bool
	detaching bool
}

var partitionName = regexp.MustCompile(`_(before_)?(\d{4}_\d{2})$`)

func partitionsOf(ctx context.Context, db bun.IDB, h History) ([]partition, error) {
	var rows []struct {
		Name      string `bun:"name"`
		Detaching bool   `bun:"detaching"`
	}
	err := db.NewRaw(`
		SELECT c.relname AS name, i.inhdetachpending AS detaching
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = ?::regclass ORDER BY c.relname`, h.Table).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("store: %s partitions: %w", h.Table, err)
	}
	var out []partition
	for _, r := range rows {
		m := partitionName.FindStringSubmatch(r.Name)
		if m == nil {
			continue
		}
		month, err := time.Parse("2006_01", m[2])
		if err != nil {
			continue
		}
		p := partition{name: r.Name, end: month, before: m[1] != "", detaching: r.Detaching}
		if !p.before {
			p.end = month.AddDate(0, 1, 0)
		}
		out = append(out, p)
	}
	// The partition of what came before holds the oldest ids.
	for i, p := range out {
		if p.before && i > 0 {
			copy(out[1:i+1], out[:i])
			out[0] = p
		}
	}
	return out, nil
}

func monthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}
