package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// AuditRow is one change as the audit trail keeps it.
type AuditRow struct {
	ID        int64           `bun:"id"`
	Livemode  bool            `bun:"livemode"`
	Action    string          `bun:"action"`
	ObjectID  string          `bun:"object_id"`
	Actor     string          `bun:"actor"`
	ActorName string          `bun:"actor_name"`
	Door      string          `bun:"door"`
	IP        *string         `bun:"ip"`
	UserAgent string          `bun:"user_agent"`
	RequestID string          `bun:"request_id"`
	Changes   json.RawMessage `bun:"changes"`
	CreatedAt time.Time       `bun:"created_at"`
}

// AuditFilter narrows an account's audit trail; zero fields do not.
type AuditFilter struct {
	AccountID string
	Actor     string // "user:usr_…", "api_key:key_…", …
	Action    string
	ObjectID  string
	Since     time.Time
	Until     time.Time
	// Before pages: rows older than this id.
	Before int64
	Limit  int
}

// auditTrail lists the account's audit rows matching f, newest first, and
// whether there are more.
func (s *Store) auditTrail(ctx context.Context, f AuditFilter) ([]AuditRow, bool, error) {
	limit := f.Limit
	if limit <= 0 || limit > 10_000 {
		limit = 50
	}
	q := s.idb(ctx).NewSelect().TableExpr("audit_trail").
		ColumnExpr("id, livemode, action, object_id, actor, actor_name, door, host(ip) AS ip, user_agent, request_id, changes, created_at").
		Where("account_id = ?", f.AccountID)
	if f.Actor != "" {
		q = q.Where("actor = ?", f.Actor)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.ObjectID != "" {
		q = q.Where("object_id = ?", f.ObjectID)
	}
	if !f.Since.IsZero() {
		q = q.Where("created_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		q = q.Where("created_at < ?", f.Until)
	}
	if f.Before > 0 {
		q = q.Where("id < ?", f.Before)
	}
	var rows []AuditRow
	if err := q.OrderExpr("id DESC").Limit(int64(limit+1)).Scan(ctx, &rows); err != nil {
		return nil, false, fmt.Errorf("store: audit trail: %w", err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	return rows, more, nil
}

// AuditActions lists the actions the account's trail holds, for a filter.
func (s *Store) AuditActions(ctx context.Context, accountID string) ([]string, error) {
	var out []string
	err := s.idb(ctx).NewRaw(`SELECT DISTINCT action FROM audit_log WHERE account_id = ? ORDER BY action`, accountID).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: audit actions: %w", err)
	}
	return out, nil
}

// AuditActors lists who appears in the account's trail, with the name
// they had last, for a filter.
func (s *Store) AuditActors(ctx context.Context, accountID string) ([]AuditRow, error) {
	var out []AuditRow
	err := s.idb(ctx).NewRaw(`SELECT DISTINCT ON (actor) actor, actor_name FROM audit_log WHERE account_id = ?
		ORDER BY actor, id DESC`, accountID).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: audit actors: %w", err)
	}
	return out, nil
}
