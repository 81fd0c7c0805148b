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
	EventPaymentCreated  = "payment.created"
	EventPaymentPaid     = "payment.paid"
	EventPaymentExpired  = "payment.expired"
	EventPaymentCanceled = "payment.canceled"
	EventPaymentRefunded = "payment.refunded"
)

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

// recordEvent writes the outbox row for a payment's state change inside tx,
// freezing the payment's public representation as the event's data.
func (s *Store) recordEvent(ctx context.Context, tx bun.Tx, eventType string, p *Payment) error {
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("store: snapshot payment: %w", err)
	}
	e := &Event{
		ID:        NewID(PrefixEvent),
		AccountID: p.AccountID,
		Livemode:  p.Livemode,
		Type:      eventType,
		ObjectID:  p.ID.String(),
		Data:      data,
		CreatedAt: p.UpdatedAt,
	}
	if _, err := tx.NewInsert().Model(e).Exec(ctx); err != nil {
		return fmt.Errorf("store: record event: %w", err)
	}
	return nil
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
