package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Event types of the catalog.
const (
	EventPaymentCreated      = "payment.created"
	EventPaymentPaid         = "payment.paid"
	EventPaymentExpired      = "payment.expired"
	EventPaymentCanceled     = "payment.canceled"
	EventPaymentRefunded     = "payment.refunded"
	EventDisputeOpened       = "dispute.opened"
	EventDisputeWon          = "dispute.won"
	EventDisputeLost         = "dispute.lost"
	EventWithdrawalCompleted = "withdrawal.completed"
	EventWithdrawalFailed    = "withdrawal.failed"
)

// EventTypes is the catalog webhooks subscribe to, in display order.
var EventTypes = []string{
	EventPaymentCreated, EventPaymentPaid, EventPaymentExpired, EventPaymentCanceled, EventPaymentRefunded,
	EventDisputeOpened, EventDisputeWon, EventDisputeLost, EventWithdrawalCompleted, EventWithdrawalFailed,
}

// DeliveriesChannel is the NOTIFY channel that wakes the dispatcher when
// deliveries are queued.
const DeliveriesChannel = "webhook_deliveries"

// Event is an outbox row: a state change and the object as it was then.
type Event struct {
	bun.BaseModel `bun:"table:events"`

	ID        string          `bun:"id,pk"`
	AccountID string          `bun:"account_id"`
	Livemode  bool            `bun:"livemode"`
	Type      string          `bun:"type"`
	ObjectID  string          `bun:"object_id"`
	Data      json.RawMessage `bun:"data,type:json"`
	CreatedAt time.Time       `bun:"created_at"`
}

// recordEvent writes the outbox row for a state change inside tx, freezing
// the object's public representation, and in the same statement queues one
// delivery per enabled webhook of the account and mode subscribed to the
// type, then NOTIFYs the dispatcher (delivered by PostgreSQL at commit).
func (s *Store) recordEvent(ctx context.Context, tx bun.Tx, eventType, accountID string, livemode bool,
	objectID string, object any, at time.Time,
) error {
	data, err := json.Marshal(object)
	if err != nil {
		return fmt.Errorf("store: snapshot %s: %w", eventType, err)
	}
	id := NewID(PrefixEvent)
	// Every state change runs this: a prepared statement (see prepared.go).
	_, err = tx.Tx.ExecContext(ctx, "WITH "+eventCTEs(1, "")+notifySelect,
		prepared(eventArgs(id, accountID, livemode, eventType, objectID, data, at)...)...)
	if err != nil {
		return fmt.Errorf("store: record event: %w", err)
	}
	return nil
}

// eventCTEs is the outbox write as CTEs for a larger statement: the event
// row (parameters $first..$first+7, in eventArgs' order) and one delivery per
// enabled webhook of the account and mode subscribed to the type. after, when
// set, is a CTE name the event insert waits for (it selects from it).
func eventCTEs(first int, after string) string {
	p := func(i int) string { return fmt.Sprintf("$%d", first+i) }
	from := ""
	if after != "" {
		from = " FROM " + after
	}
	return `event AS (
			INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at)
			SELECT ` + p(0) + `::text, ` + p(1) + `::text, ` + p(2) + `::boolean, ` + p(3) + `::text, ` + p(4) + `::text, ` +
		p(5) + `::json, ` + p(6) + `::timestamptz` + from + `
			RETURNING id
		), queued AS (
			INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
				status, next_attempt_at, created_at, updated_at)
			SELECT 'whd_' || replace(gen_random_uuid()::text, '-', ''), event.id, w.id, w.account_id, w.livemode, ` + p(3) + `,
				'pending', ` + p(6) + `, ` + p(6) + `, ` + p(6) + `
			FROM event, webhooks w
			WHERE w.account_id = ` + p(1) + ` AND w.livemode = ` + p(2) + ` AND w.enabled AND ` + p(3) + ` = ANY (w.events)
			RETURNING 1
		), notify AS (
			SELECT pg_notify(` + p(7) + `, '') FROM (SELECT count(*) AS n FROM queued) q WHERE q.n > 0
		)`
}

// notifySelect ends a statement built with eventCTEs; selecting from notify
// makes PostgreSQL run it.
const notifySelect = "\n\t\tSELECT count(*) FROM notify"

func eventArgs(id, accountID string, livemode bool, eventType, objectID string, data []byte, at time.Time) []any {
	return []any{id, accountID, livemode, eventType, objectID, string(data), at, DeliveriesChannel}
}

// recordPaymentEvent records a payment's state change.
func (s *Store) recordPaymentEvent(ctx context.Context, tx bun.Tx, eventType string, p *Payment) error {
	return s.recordEvent(ctx, tx, eventType, p.AccountID, p.Livemode, p.ID.String(), p, p.UpdatedAt)
}

// EventsForObject lists an object's events in the order they happened.
func (s *Store) EventsForObject(ctx context.Context, scope Scope, objectID string) ([]Event, error) {
	var events []Event
	err := s.idb(ctx).NewSelect().Model(&events).
		Where("account_id = ? AND livemode = ? AND object_id = ?", scope.AccountID, scope.Livemode, objectID).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	return events, nil
}
