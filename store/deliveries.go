package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// DeliveryStatuses lists every delivery status.
var DeliveryStatuses = []string{DeliveryPending, DeliverySucceeded, DeliveryFailed}

// Delivery is one event queued for one webhook: the queue the dispatcher
// claims from. Its attempts are DeliveryAttempts.
type Delivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID             string     `bun:"id,pk"`
	EventID        string     `bun:"event_id"`
	WebhookID      string     `bun:"webhook_id"`
	AccountID      string     `bun:"account_id"`
	Livemode       bool       `bun:"livemode"`
	EventType      string     `bun:"event_type"`
	Status         string     `bun:"status"`
	Attempts       int        `bun:"attempts"`
	NextAttemptAt  time.Time  `bun:"next_attempt_at"`
	LeaseToken     *string    `bun:"lease_token"`
	LeaseExpiresAt *time.Time `bun:"lease_expires_at"`
	LastStatusCode *int       `bun:"last_status_code"`
	LastError      *string    `bun:"last_error"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
	CompletedAt    *time.Time `bun:"completed_at"`

	Webhook      *Webhook          `bun:"rel:belongs-to,join:webhook_id=id"`
	Event        *Event            `bun:"rel:belongs-to,join:event_id=id"`
	AttemptsList []DeliveryAttempt `bun:"rel:has-many,join:id=delivery_id"`
}

// DeliveryListParams pages a webhook's deliveries, newest first.
type DeliveryListParams struct {
	Scope         Scope
	WebhookID     string
	Status        string
	Limit         int
	StartingAfter string
}

// Deliveries lists a webhook's deliveries with their attempts.
func (s *Store) Deliveries(ctx context.Context, p DeliveryListParams) ([]Delivery, bool, error) {
	var out []Delivery
	q := s.idb(ctx).NewSelect().Model(&out).
		Relation("AttemptsList", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("created_at", "id") }).
		Where("delivery.webhook_id = ? AND delivery.account_id = ? AND delivery.livemode = ?", p.WebhookID, p.Scope.AccountID, p.Scope.Livemode)
	if p.Status != "" {
		q = q.Where("delivery.status = ?", p.Status)
	}
	if p.StartingAfter != "" {
		q = q.Where("(delivery.created_at, delivery.id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = ?)", p.StartingAfter)
	}
	if err := q.Order("delivery.created_at DESC", "delivery.id DESC").Limit(int64(p.Limit) + 1).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("store: deliveries: %w", err)
	}
	hasMore := len(out) > p.Limit
	if hasMore {
		out = out[:p.Limit]
	}
	return out, hasMore, nil
}

// Delivery returns one of a webhook's deliveries with its attempts.
func (s *Store) Delivery(ctx context.Context, scope Scope, webhookID, id string) (*Delivery, error) {
	d := new(Delivery)
	err := s.idb(ctx).NewSelect().Model(d).
		Relation("AttemptsList", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("created_at", "id") }).
		Where("delivery.id = ? AND delivery.webhook_id = ? AND delivery.account_id = ? AND delivery.livemode = ?",
			id, webhookID, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: delivery: %w", translate(err))
	}
	return d, nil
}

// ResendDelivery queues a delivery for an immediate new attempt, whatever
// its status. A delivery being attempted right now is left alone.
func (s *Store) ResendDelivery(ctx context.Context, scope Scope, webhookID, id string) (*Delivery, error) {
	if _, err := s.Delivery(ctx, scope, webhookID, id); err != nil {
		return nil, err
	}
	now := s.Now()
	_, err := s.idb(ctx).NewRaw(`
		WITH requeued AS (
			UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?0, completed_at = NULL, updated_at = ?0
			WHERE id = ?1 AND (lease_expires_at IS NULL OR lease_expires_at <= ?0)
			RETURNING 1
		)
		SELECT pg_notify(?2, '') FROM requeued`, now, id, DeliveriesChannel).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: resend delivery: %w", err)
	}
	return s.Delivery(ctx, scope, webhookID, id)
}

// ResendFailedSince queues every failed delivery of the webhook created at
// or after since, and returns how many.
func (s *Store) ResendFailedSince(ctx context.Context, scope Scope, webhookID string, since time.Time) (int, error) {
	if _, err := s.Webhook(ctx, scope, webhookID); err != nil {
		return 0, err
	}
	now := s.Now()
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		err := tx.NewRaw(`
			WITH requeued AS (
				UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?0, completed_at = NULL, updated_at = ?0
				WHERE webhook_id = ?1 AND status = 'failed' AND created_at >= ?2
				RETURNING 1
			)
			SELECT count(*) FROM requeued`, now, webhookID, since).Scan(ctx, &n)
		if err != nil || n == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, '')", DeliveriesChannel)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: resend failed deliveries: %w", err)
	}
	return n, nil
}

// StuckDeliveries counts pending deliveries whose lease expired more than
// grace ago: a healthy dispatcher leaves none.
func (s *Store) StuckDeliveries(ctx context.Context, now time.Time, grace time.Duration) (int, error) {
	n, err := s.db.NewSelect().Model((*Delivery)(nil)).
		Where("status = 'pending' AND lease_token IS NOT NULL AND lease_expires_at < ?", now.Add(-grace)).Count(ctx)
	return int(n), err
}

// LastDeliveries returns each webhook's most recently updated delivery.
func (s *Store) LastDeliveries(ctx context.Context, webhookIDs []string) (map[string]Delivery, error) {
	out := map[string]Delivery{}
	if len(webhookIDs) == 0 {
		return out, nil
	}
	var rows []Delivery
	err := s.idb(ctx).NewSelect().Model(&rows).DistinctOn("webhook_id").
		Where("webhook_id IN (?)", bun.In(webhookIDs)).OrderExpr("webhook_id, updated_at DESC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: last deliveries: %w", err)
	}
	for _, d := range rows {
		out[d.WebhookID] = d
	}
	return out, nil
}

// DeliveriesForEvents lists the deliveries of the given events, oldest first.
func (s *Store) DeliveriesForEvents(ctx context.Context, scope Scope, eventIDs []string) ([]Delivery, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	var out []Delivery
	err := s.idb(ctx).NewSelect().Model(&out).
		Where("event_id IN (?) AND account_id = ? AND livemode = ?", bun.In(eventIDs), scope.AccountID, scope.Livemode).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: deliveries for events: %w", err)
	}
	return out, nil
}
