package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
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

// TruncatedBodyHeader is the entry among an attempt's request or response
// headers that says its body was cut to what is kept (16 KiB each, the
// dispatcher's limits): its value is the request body's whole length in
// bytes, or "more than 16384" for an answer (not read past that). No real
// header can have its name (HTTP field names have no spaces).
const TruncatedBodyHeader = "(body truncated)"

// ResponseText shows a receiver's response body as text; bytes that are
// not UTF-8 become U+FFFD.
func (a *DeliveryAttempt) ResponseText() string {
	if utf8.Valid(a.ResponseBody) {
		return string(a.ResponseBody)
	}
	return strings.ToValidUTF8(string(a.ResponseBody), "\uFFFD")
}

// WebhookHealth is how a webhook's receiver has answered lately.
type WebhookHealth struct {
	WebhookID string `bun:"webhook_id"`
	// Attempts and Succeeded count the last 24 hours' attempts and the 2xx among them.
	Attempts  int `bun:"attempts"`
	Succeeded int `bun:"succeeded"`
	// LastError is the latest failed attempt's error or status, and when.
	LastErrorClass   *string    `bun:"last_error_class"`
	LastErrorMessage *string    `bun:"last_error_message"`
	LastErrorStatus  *int       `bun:"last_error_status"`
	LastErrorAt      *time.Time `bun:"last_error_at"`
}

// SuccessRate is the share of the last 24 hours' attempts answered 2xx, in
// percent (-1 with no attempts).
func (h WebhookHealth) SuccessRate() int {
	if h.Attempts == 0 {
		return -1
	}
	return h.Succeeded * 100 / h.Attempts
}

// webhooksHealth is the health of each of these webhooks (since is 24 hours
// ago), in one query.
func (s *Store) webhooksHealth(ctx context.Context, webhookIDs []string, since time.Time) (map[string]WebhookHealth, error) {
	out := map[string]WebhookHealth{}
	if len(webhookIDs) == 0 {
		return out, nil
	}
	var rows []WebhookHealth
	err := s.idb(ctx).NewRaw(`
		SELECT w.id AS webhook_id, coalesce(r.attempts, 0) AS attempts, coalesce(r.succeeded, 0) AS succeeded,
			f.error_class AS last_error_class, f.error_message AS last_error_message,
			f.response_status AS last_error_status, f.created_at AS last_error_at
		FROM unnest(?0::text[]) AS w(id)
		LEFT JOIN LATERAL (
			SELECT count(*) AS attempts, count(*) FILTER (WHERE response_status BETWEEN 200 AND 299) AS succeeded
			FROM delivery_attempts WHERE webhook_id = w.id AND created_at >= ?1
		) r ON true
		LEFT JOIN LATERAL (
			SELECT error_class, error_message, response_status, created_at FROM delivery_attempts
			WHERE webhook_id = w.id AND (response_status IS NULL OR response_status NOT BETWEEN 200 AND 299)
			ORDER BY created_at DESC LIMIT 1
		) f ON true`, pgdialect.Array(webhookIDs), since).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("store: webhooks health: %w", err)
	}
	for _, h := range rows {
		out[h.WebhookID] = h
	}
	return out, nil
}

// Attempts lists a delivery's attempts, oldest first.
func (s *Store) Attempts(ctx context.Context, deliveryID string) ([]DeliveryAttempt, error) {
	var out []DeliveryAttempt
	if err := s.idb(ctx).NewSelect().Model(&out).Where("delivery_id = ?", deliveryID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: attempts: %w", err)
	}
	return out, nil
}

// ForgetAttemptOfDeletedDelivery deletes the attempt attemptID when its
// delivery no longer exists, and reports whether the delivery is gone: its
// webhook was deleted while the attempt was in flight, so the finish found
// no lease to end (DeleteWebhook deleted the attempts there were then, and
// this one was recorded after). A delivery that is still there lost its
// lease instead, and its attempt stays.
func (s *Store) ForgetAttemptOfDeletedDelivery(ctx context.Context, attemptID, deliveryID string) (gone bool, err error) {
	err = s.db.NewRaw(`WITH gone AS MATERIALIZED (
			SELECT NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ?) AS yes
		), forgotten AS (
			DELETE FROM delivery_attempts WHERE id = ? AND delivery_id = ? AND (SELECT yes FROM gone)
		)
		SELECT yes FROM gone`, deliveryID, attemptID, deliveryID).Scan(ctx, &gone)
	if err != nil {
		return false, fmt.Errorf("store: forget attempt of a deleted delivery: %w", err)
	}
	return gone, nil
}
