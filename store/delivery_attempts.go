package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// DeliveryAttempt is one HTTP request to a receiver and what came back. A
// "send test" makes one with no delivery.
type DeliveryAttempt struct {
	bun.BaseModel `bun:"table:delivery_attempts"`

	ID              string              `bun:"id,pk"`
	DeliveryID      *string             `bun:"delivery_id"`
	WebhookID       string              `bun:"webhook_id"`
	EventID         string              `bun:"event_id"`
	EventType       string              `bun:"event_type"`
	Attempt         int                 `bun:"attempt"`
	RequestURL      string              `bun:"request_url"`
	RequestHeaders  map[string]string   `bun:"request_headers,type:jsonb"`
	RequestBody     string              `bun:"request_body"`
	ResponseStatus  *int                `bun:"response_status"`
	ResponseHeaders map[string][]string `bun:"response_headers,type:jsonb"`
	ResponseBody    []byte              `bun:"response_body"`
	DurationMS      int                 `bun:"duration_ms"`
	ErrorClass      *string             `bun:"error_class"`
	ErrorMessage    *string             `bun:"error_message"`
	CreatedAt       time.Time           `bun:"created_at"`
}

// ResponseText shows a receiver's response body as text; bytes that are
// not UTF-8 become U+FFFD.
func (a *DeliveryAttempt) ResponseText() string {
	if utf8.Valid(a.ResponseBody) {
		return string(a.ResponseBody)
	}
	return strings.ToValidUTF8(string(a.ResponseBody), "\uFFFD")
}

// RecordAttempt stores an attempt outside the queue (a "send test").
func (s *Store) RecordAttempt(ctx context.Context, a *DeliveryAttempt) error {
	if _, err := s.idb(ctx).NewInsert().Model(a).Exec(ctx); err != nil {
		return fmt.Errorf("store: record attempt: %w", err)
	}
	return nil
}

// TestAttempts lists a webhook's "send test" attempts, newest first.
func (s *Store) TestAttempts(ctx context.Context, scope Scope, webhookID string, limit int) ([]DeliveryAttempt, error) {
	if _, err := s.Webhook(ctx, scope, webhookID); err != nil {
		return nil, err
	}
	var out []DeliveryAttempt
	err := s.idb(ctx).NewSelect().Model(&out).Where("webhook_id = ? AND delivery_id IS NULL", webhookID).
		Order("created_at DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: test attempts: %w", err)
	}
	return out, nil
}

// PruneAttempts deletes attempts older than before, at most limit at a time.
func (s *Store) PruneAttempts(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := s.db.NewDelete().Model((*DeliveryAttempt)(nil)).
		Where("id IN (SELECT id FROM delivery_attempts WHERE created_at < ? LIMIT ?)", before, limit).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: prune attempts: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
