package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/store/ids"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// DeliveryStatuses lists every delivery status.
var DeliveryStatuses = []string{DeliveryPending, DeliverySucceeded, DeliveryFailed}

// DeliveryFailing is a filter, not a status: every delivery whose last
// attempt failed, given up (failed) or still retrying (pending after an
// attempt: one that succeeded would have ended it).
const DeliveryFailing = "failing"

// DeliveryFilters are the values a list of deliveries filters status by.
var DeliveryFilters = append(slices.Clone(DeliveryStatuses), DeliveryFailing)

// whereDeliveryStatus narrows q to deliveries of status, or failing.
func whereDeliveryStatus(q *bun.SelectQuery, status string) *bun.SelectQuery {
	switch status {
	case "":
		return q
	case DeliveryFailing:
		return q.Where("(delivery.status = ? OR (delivery.status = ? AND delivery.attempts > 0))", DeliveryFailed, DeliveryPending)
	}
	return q.Where("delivery.status = ?", status)
}

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
	// OrderKey is what an ordered webhook's pending delivery waits its
	// turn behind: its webhook and the event's object (OrderKey); nil for
	// unordered webhooks and once the delivery ended.
	OrderKey *string `bun:"order_key"`
	// WokenAt and ClaimedAt time the last claim: when the dispatcher woke
	// for it (nil for a delivery a worker chained to after a success) and
	// when the claim's statement ran in PostgreSQL (after its lock), so a
	// wait between the two shows.
	WokenAt   *time.Time `bun:"woken_at"`
	ClaimedAt *time.Time `bun:"claimed_at"`
	// Test marks a "send test": one attempt of a sample event.
	Test bool `bun:"test"`

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
	q = whereDeliveryStatus(q, p.Status)
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

// OrderKey is the order_key of an ordered webhook's pending delivery about
// objectID (the outbox writes the same: webhook id, a colon, object id).
func OrderKey(webhookID, objectID string) string { return webhookID + ":" + objectID }

// orderKeyAgainSQL is a delivery's order_key as it is queued again (a
// resend): its webhook's and event's, when the webhook is ordered now.
const orderKeyAgainSQL = `(SELECT CASE WHEN w.ordered THEN w.id || ':' || e.object_id END
					FROM webhooks w, events e WHERE w.id = webhook_deliveries.webhook_id AND e.id = webhook_deliveries.event_id)`

// ResendDelivery queues a delivery for an immediate new attempt, whatever
// its status. A delivery being attempted right now is left alone.
func (s *Store) ResendDelivery(ctx context.Context, scope Scope, webhookID, id string) (*Delivery, error) {
	if _, err := s.Delivery(ctx, scope, webhookID, id); err != nil {
		return nil, err
	}
	now := s.Now()
	_, err := s.idb(ctx).NewRaw(`
		WITH requeued AS (
			UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?0, completed_at = NULL, updated_at = ?0,
				order_key = `+orderKeyAgainSQL+`
			WHERE id = ?1 AND (lease_expires_at IS NULL OR lease_expires_at <= ?0)
			RETURNING 1
		)
		SELECT pg_notify(?2, '') FROM requeued`, now, id, DeliveriesChannel).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: resend delivery: %w", err)
	}
	return s.Delivery(ctx, scope, webhookID, id)
}

// ResendFailedSince queues every delivery of the webhook created at or after
// since whose last attempt failed, given up or still waiting to retry (not
// one being attempted now), for an attempt now, and returns how many.
func (s *Store) ResendFailedSince(ctx context.Context, scope Scope, webhookID string, since time.Time) (int, error) {
	if _, err := s.Webhook(ctx, scope, webhookID); err != nil {
		return 0, err
	}
	now := s.Now()
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		err := tx.NewRaw(`
			WITH requeued AS (
				UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?0, completed_at = NULL, updated_at = ?0,
					order_key = `+orderKeyAgainSQL+`
				WHERE webhook_id = ?1 AND created_at >= ?2
					AND (status = 'failed' OR (status = 'pending' AND attempts > 0 AND next_attempt_at > ?0 AND lease_token IS NULL))
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

// lastDeliveries returns each webhook's most recently updated delivery.
func (s *Store) lastDeliveries(ctx context.Context, webhookIDs []string) (map[string]Delivery, error) {
	out := map[string]Delivery{}
	if len(webhookIDs) == 0 {
		return out, nil
	}
	var rows []Delivery
	err := s.idb(ctx).NewSelect().Model(&rows).DistinctOn("webhook_id").
		Where("webhook_id IN (?)", bun.List(webhookIDs)).OrderExpr("webhook_id, updated_at DESC").Scan(ctx)
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
		Where("event_id IN (?) AND account_id = ? AND livemode = ?", bun.List(eventIDs), scope.AccountID, scope.Livemode).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: deliveries for events: %w", err)
	}
	return out, nil
}

// RecordTestSend records a "send test" like any delivery: its sample event
// (marked, so that timelines and event lists leave it out), a delivery
// marked test that ended with the attempt, and the attempt.
func (s *Store) RecordTestSend(ctx context.Context, e *Event, a *DeliveryAttempt, succeeded bool) (*Delivery, error) {
	e.Sample, e.Actor = true, actorOf(ctx)
	d := &Delivery{
		ID: ids.NewStem(ids.PrefixDelivery) + "t", EventID: e.ID, WebhookID: a.WebhookID, AccountID: e.AccountID, Livemode: e.Livemode,
		EventType: e.Type, Status: DeliveryFailed, Attempts: 1, NextAttemptAt: a.CreatedAt, LastStatusCode: a.ResponseStatus,
		CreatedAt: a.CreatedAt, UpdatedAt: a.CreatedAt, CompletedAt: &a.CreatedAt, Test: true,
	}
	if succeeded {
		d.Status = DeliverySucceeded
	} else if a.ErrorClass != nil {
		d.LastError = a.ErrorClass
	}
	a.DeliveryID = &d.ID
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(e).Exec(ctx); err != nil {
			return fmt.Errorf("store: sample event: %w", err)
		}
		if _, err := tx.NewInsert().Model(d).ExcludeColumn("lease_token", "lease_expires_at").Exec(ctx); err != nil {
			return fmt.Errorf("store: test delivery: %w", err)
		}
		if _, err := tx.NewInsert().Model(a).Exec(ctx); err != nil {
			return fmt.Errorf("store: test attempt: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DeliveryFilter narrows the delivery console of one webhook: status, event
// type, a window of creation, and a search for an id or reference (an
// event id, a delivery id, a payment id or a payment's external_id).
type DeliveryFilter struct {
	Scope         Scope
	WebhookID     string
	Status        string
	EventType     string
	From, To      *time.Time
	Search        string
	StartingAfter string
	Limit         int
}

// DeliveryRow is a delivery as the console lists it: with the object its
// event is about and, when that is (or belongs to) a payment, the payment's
// id, external_id and amount.
type DeliveryRow struct {
	Delivery
	ObjectID          string     `bun:"object_id"`
	PaymentID         *uuid.UUID `bun:"payment_id,type:uuid"`
	PaymentExternalID *string    `bun:"payment_external_id"`
	PaymentAmount     *int64     `bun:"payment_amount"`
	// Waiting: its ordered webhook holds it behind an earlier delivery of
	// its object that is still pending.
	Waiting bool `bun:"waiting"`
}

// deliveryConsole is one page of a webhook's deliveries, newest first, in
// one query (attempts are read one delivery at a time, when opened).
func (s *Store) deliveryConsole(ctx context.Context, f DeliveryFilter) ([]DeliveryRow, bool, error) {
	var out []DeliveryRow
	q := s.idb(ctx).NewSelect().TableExpr("webhook_deliveries AS delivery").
		ColumnExpr("delivery.*, e.object_id, p.id AS payment_id, p.external_id AS payment_external_id, p.amount_cents AS payment_amount").
		ColumnExpr(`delivery.order_key IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries earlier
			WHERE earlier.order_key = delivery.order_key AND (earlier.created_at, earlier.id) < (delivery.created_at, delivery.id)) AS waiting`).
		Join("JOIN events AS e ON e.id = delivery.event_id").
		// A payment's events name it; a refund's or a dispute's carry its payment_id.
		Join(`LEFT JOIN payments AS p ON p.id = CASE WHEN e.object_id ~ '^[0-9a-f]{8}-' THEN e.object_id::uuid
			WHEN (e.data ->> 'payment_id') ~ '^[0-9a-f]{8}-' THEN (e.data ->> 'payment_id')::uuid END`).
		Where("delivery.webhook_id = ? AND delivery.account_id = ? AND delivery.livemode = ?", f.WebhookID, f.Scope.AccountID, f.Scope.Livemode)
	q = whereDeliveryStatus(q, f.Status)
	if f.EventType != "" {
		q = q.Where("delivery.event_type = ?", f.EventType)
	}
	if f.From != nil {
		q = q.Where("delivery.created_at >= ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("delivery.created_at < ?", *f.To)
	}
	if search := strings.TrimSpace(f.Search); search != "" {
		switch id, isPayment := ParsePaymentID(search); {
		case strings.HasPrefix(search, ids.PrefixEvent+"_"):
			q = q.Where("delivery.event_id = ?", search)
		case strings.HasPrefix(search, ids.PrefixDelivery+"_"):
			q = q.Where("delivery.id = ?", search)
		default:
			// A payment's deliveries are found through its events (its own,
			// its refunds' and its disputes'), each by its index: matched on
			// the join's expression, every delivery of the webhook was
			// joined to its payment first.
			objects, err := s.paymentObjects(ctx, f.Scope, id, isPayment, search)
			if err != nil {
				return nil, false, err
			}
			if len(objects) == 0 {
				return nil, false, nil
			}
			// Their events first, apart: as a subquery across the monthly
			// partitions, PostgreSQL expected many and scanned every
			// delivery of the webhook to match them (0.7 s at 4M).
			var events []string
			err = s.idb(ctx).NewSelect().Table("events").Column("id").Where("object_id IN (?)", bun.List(objects)).Scan(ctx, &events)
			if err != nil {
				return nil, false, fmt.Errorf("store: delivery console: %w", err)
			}
			if len(events) == 0 {
				return nil, false, nil
			}
			q = q.Where("delivery.event_id IN (?)", bun.List(events))
		}
	}
	if f.StartingAfter != "" {
		q = q.Where("(delivery.created_at, delivery.id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = ?)", f.StartingAfter)
	}
	if err := q.OrderExpr("delivery.created_at DESC, delivery.id DESC").Limit(int64(f.Limit)+1).Scan(ctx, &out); err != nil {
		return nil, false, fmt.Errorf("store: delivery console: %w", err)
	}
	hasMore := len(out) > f.Limit
	if hasMore {
		out = out[:f.Limit]
	}
	return out, hasMore, nil
}

// paymentObjects are the ids events name when they are about the payment
// id (or, unless byID, the payment of scope whose external_id is ref): the
// payment, its refunds and its disputes. None when there is no such payment.
func (s *Store) paymentObjects(ctx context.Context, scope Scope, id uuid.UUID, byID bool, ref string) ([]string, error) {
	var objects []string
	where, arg := "id = ?1", any(id)
	if !byID {
		where, arg = "external_id = ?1", ref
	}
	err := s.idb(ctx).NewRaw(`WITH p AS (SELECT id FROM payments WHERE account_id = ?0 AND livemode = ?2 AND `+where+`)
		SELECT id::text FROM p
		UNION ALL SELECT r.id FROM refunds r JOIN p ON r.payment_id = p.id
		UNION ALL SELECT d.id FROM disputes d JOIN p ON d.payment_id = p.id`, scope.AccountID, arg, scope.Livemode).Scan(ctx, &objects)
	if err != nil {
		return nil, fmt.Errorf("store: a payment's objects: %w", err)
	}
	return objects, nil
}

// DeliveryByID returns any account's delivery, for the support console.
func (s *Store) DeliveryByID(ctx context.Context, id string) (*Delivery, error) {
	d := new(Delivery)
	if err := s.idb(ctx).NewSelect().Model(d).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: delivery: %w", translate(err))
	}
	return d, nil
}

// WebhookBacklog is what waits in a webhook's queue: every pending delivery,
// and those of them due now.
type WebhookBacklog struct {
	Pending int `bun:"pending"`
	Due     int `bun:"due"`
}

// Backlog counts a webhook's pending deliveries (webhook_deliveries_claim_idx).
func (s *Store) Backlog(ctx context.Context, webhookID string, now time.Time) (WebhookBacklog, error) {
	var b WebhookBacklog
	err := s.idb(ctx).NewRaw(`SELECT count(*) AS pending, count(*) FILTER (WHERE next_attempt_at <= ?) AS due
		FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'`, now, webhookID).Scan(ctx, &b)
	if err != nil {
		return b, fmt.Errorf("store: backlog: %w", err)
	}
	return b, nil
}

// QueueState is the outbound queues at one moment, for metrics.
type QueueState struct {
	Due              int     `bun:"due"`
	Pending          int     `bun:"pending"`
	Leased           int     `bun:"leased"`
	OldestDueSeconds float64 `bun:"oldest_due_seconds"`
	DisabledWebhooks int     `bun:"disabled_webhooks"`
	PSPPending       int     `bun:"psp_pending"`
}

// QueueState reads the queues in one statement (the pending deliveries
// through webhook_deliveries_claim_idx, which holds only those).
func (s *Store) QueueState(ctx context.Context, now time.Time) (QueueState, error) {
	var q QueueState
	err := s.idb(ctx).NewRaw(`
		SELECT count(*) FILTER (WHERE d.next_attempt_at <= ?0 AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= ?0) AND w.enabled) AS due,
			count(*) AS pending,
			count(*) FILTER (WHERE d.lease_expires_at > ?0) AS leased,
			coalesce(extract(epoch FROM ?0 - min(d.next_attempt_at) FILTER (
				WHERE d.next_attempt_at <= ?0 AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= ?0) AND w.enabled)), 0) AS oldest_due_seconds,
			(SELECT count(*) FROM webhooks WHERE NOT enabled AND disabled_reason <> 'manual') AS disabled_webhooks,
			(SELECT count(*) FROM psp_calls WHERE status = 'pending') AS psp_pending
		FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
		WHERE d.status = 'pending'`, now).Scan(ctx, &q)
	if err != nil {
		return q, fmt.Errorf("store: queue state: %w", err)
	}
	return q, nil
}
