package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/store/ids"
)

// Why a payment was refunded.
const (
	RefundRequested   = "requested"    // the merchant asked (POST .../refund)
	RefundDisputeLost = "dispute_lost" // a lost dispute returned the money
)

// Refund records the return of a paid payment's amount to the payer.
type Refund struct {
	bun.BaseModel `bun:"table:refunds"`

	ID          string    `bun:"id,pk"`
	AccountID   string    `bun:"account_id"`
	Livemode    bool      `bun:"livemode"`
	PaymentID   uuid.UUID `bun:"payment_id,type:uuid"`
	AmountCents int64     `bun:"amount_cents"`
	Reason      string    `bun:"reason"`
	DisputeID   *string   `bun:"dispute_id"`
	CreatedAt   time.Time `bun:"created_at"`
}

func (s *Store) insertRefund(ctx context.Context, tx bun.Tx, p *Payment, reason string, disputeID *string) (*Refund, error) {
	r := &Refund{
		ID: ids.New(ids.PrefixRefund), AccountID: p.AccountID, Livemode: p.Livemode, PaymentID: p.ID,
		AmountCents: p.AmountCents, Reason: reason, DisputeID: disputeID, CreatedAt: p.UpdatedAt,
	}
	if _, err := tx.NewInsert().Model(r).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: insert refund: %w", translate(err))
	}
	return r, nil
}

// RefundsForPayment lists a payment's refunds (at most one: refunds are full).
func (s *Store) RefundsForPayment(ctx context.Context, scope Scope, paymentID uuid.UUID) ([]Refund, error) {
	out, err := ofPayment[Refund](ctx, s.idb(ctx), scope, paymentID, "created_at")
	if err != nil {
		return nil, fmt.Errorf("store: refunds: %w", err)
	}
	return out, nil
}
