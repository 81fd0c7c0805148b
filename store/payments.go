package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Payment statuses. pending -> paid | expired | canceled; paid -> refunded.
const (
	StatusPending  = "pending"
	StatusPaid     = "paid"
	StatusExpired  = "expired"
	StatusCanceled = "canceled"
	StatusRefunded = "refunded"
)

// PaymentStatuses lists every status, in lifecycle order.
var PaymentStatuses = []string{StatusPending, StatusPaid, StatusExpired, StatusCanceled, StatusRefunded}

// Scope is whose data a request sees: one account in one mode.
type Scope struct {
	AccountID string
	Livemode  bool
}

// Customer is the payer as given at creation; document holds digits only.
type Customer struct {
	Name     string  `json:"name"`
	Email    string  `json:"email"`
	Document string  `json:"document"`
	Phone    *string `json:"phone"`
}

// Payment is a PIX charge.
type Payment struct {
	bun.BaseModel `bun:"table:payments"`

	ID            uuid.UUID         `bun:"id,pk,type:uuid"`
	AccountID     string            `bun:"account_id"`
	Livemode      bool              `bun:"livemode"`
	Status        string            `bun:"status"`
	AmountCents   int64             `bun:"amount_cents"`
	Currency      string            `bun:"currency"`
	PaymentMethod string            `bun:"payment_method"`
	Description   *string           `bun:"description"`
	ExternalID    *string           `bun:"external_id"`
	Customer      *Customer         `bun:"customer,type:jsonb"`
	Metadata      map[string]string `bun:"metadata,type:jsonb,notnull"`
	CorrelationID string            `bun:"correlation_id"`
	FeeCents      int64             `bun:"fee_cents"`
	BRCode        string            `bun:"br_code"`
	QRCodeURL     string            `bun:"qr_code_url"`
	CheckoutURL   string            `bun:"checkout_url"`
	CreatedAt     time.Time         `bun:"created_at"`
	UpdatedAt     time.Time         `bun:"updated_at"`
	ExpiresAt     time.Time         `bun:"expires_at"`
	PaidAt        *time.Time        `bun:"paid_at"`
	CanceledAt    *time.Time        `bun:"canceled_at"`
	ExpiredAt     *time.Time        `bun:"expired_at"`
	RefundedAt    *time.Time        `bun:"refunded_at"`
}

// Scope is the account and mode the payment belongs to.
func (p *Payment) Scope() Scope { return Scope{AccountID: p.AccountID, Livemode: p.Livemode} }

// InvalidTransitionError says which status refused a change, and of what
// object ("payment" when Object is empty).
type InvalidTransitionError struct {
	Object string
	Status string
}

func (e *InvalidTransitionError) Error() string {
	object := e.Object
	if object == "" {
		object = "payment"
	}
	return "store: " + object + " is " + e.Status
}

func (e *InvalidTransitionError) Is(target error) bool { return target == ErrInvalidTransition }

// CreatePayment inserts a fully built pending payment, its payment.created
// event and the event's deliveries atomically (one statement). A taken
// external_id is a ConflictError.
func (s *Store) CreatePayment(ctx context.Context, p *Payment) error {
	c := newPaymentCreate(p)
	// The API's hottest write: the payment, its payment.created event and the
	// event's deliveries in one prepared statement and one transaction.
	// Outside a request's idempotency transaction, concurrent creations
	// share statements (paymentCreates).
	var err error
	if _, ambient := ctx.Value(ambientTxKey{}).(bun.Tx); ambient {
		// In a request's idempotency transaction, a savepoint keeps a
		// refusal (a taken external_id) from aborting the whole transaction.
		err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.Tx.ExecContext(ctx, createPaymentSQL, prepared(c.args()...)...)
			return err
		})
	} else {
		_, err = s.creates.do(ctx, c)
	}
	if err != nil {
		return fmt.Errorf("store: create payment: %w", translate(err))
	}
	return nil
}

// createPaymentSQL creates one payment (paymentCreate.args are its
// arguments) with its event and the event's deliveries.
var createPaymentSQL = `WITH payment AS (
			INSERT INTO payments (id, account_id, livemode, status, amount_cents,
				currency, payment_method, description, external_id, customer, metadata, correlation_id, fee_cents,
				br_code, qr_code_url, checkout_url, created_at, updated_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
			RETURNING id
		), ` + eventCTEs(20, "payment") + notifySelect

// lockPayment finds the payment ref names in scope and locks it for tx: a
// UUID equal to a payment's id wins over an equal external_id. Prepared.
func lockPayment(ctx context.Context, tx bun.Tx, scope Scope, ref string) (*Payment, error) {
	var r paymentRow
	query, args := `SELECT `+paymentColumns+` FROM payments WHERE account_id = $1 AND livemode = $2
		AND external_id = $3 LIMIT 1 FOR UPDATE`, []any{scope.AccountID, scope.Livemode, ref}
	if id, ok := ParsePaymentID(ref); ok {
		query, args = `SELECT `+paymentColumns+` FROM payments WHERE account_id = $1 AND livemode = $2
			AND (id = $4 OR external_id = $3) ORDER BY id = $4 DESC LIMIT 1 FOR UPDATE`, append(args, pgUUID(id))
	}
	if err := tx.Tx.QueryRowContext(ctx, query, prepared(args...)...).Scan(r.dest()...); err != nil {
		return nil, fmt.Errorf("store: payment: %w", translate(err))
	}
	return r.payment()
}

// ParsePaymentID accepts only the canonical 36-character UUID form.
func ParsePaymentID(s string) (uuid.UUID, bool) {
	if len(s) != 36 {
		return uuid.UUID{}, false
	}
	id, err := uuid.Parse(s)
	return id, err == nil
}

// CancelPayment cancels a pending payment. Canceling a canceled payment
// returns it unchanged. A pending payment already past its expiry is expired
// (with its event) and, like every other status, refuses with ErrInvalidTransition.
func (s *Store) CancelPayment(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	return s.transition(ctx, scope, ref, func(p *Payment, now time.Time) (string, error) {
		switch {
		case p.Status == StatusCanceled:
			return "", nil
		case p.Status == StatusPending && !now.Before(p.ExpiresAt):
			p.Status, p.ExpiredAt = StatusExpired, &now
			return EventPaymentExpired, &InvalidTransitionError{Status: StatusExpired}
		case p.Status == StatusPending:
			p.Status, p.CanceledAt = StatusCanceled, &now
			return EventPaymentCanceled, nil
		}
		return "", &InvalidTransitionError{Status: p.Status}
	})
}

// MarkPaymentPaid records the PSP's confirmation. The money is real, so an
// expired or canceled charge becomes paid too; a paid or refunded one refuses.
func (s *Store) MarkPaymentPaid(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	return s.transition(ctx, scope, ref, func(p *Payment, now time.Time) (string, error) {
		switch p.Status {
		case StatusPending, StatusExpired, StatusCanceled:
			p.Status, p.PaidAt = StatusPaid, &now
			return EventPaymentPaid, nil
		}
		return "", &InvalidTransitionError{Status: p.Status}
	})
}

// RefundPayment refunds a paid payment in full. A payment with an open
// dispute is ErrPaymentDisputed; one the available balance cannot cover
// (amount less the fee given back) is ErrBalanceInsufficient.
func (s *Store) RefundPayment(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	return s.transition(ctx, scope, ref, func(p *Payment, now time.Time) (string, error) {
		if p.Status != StatusPaid {
			return "", &InvalidTransitionError{Status: p.Status}
		}
		p.Status, p.RefundedAt = StatusRefunded, &now
		return EventPaymentRefunded, nil
	})
}

// ExpirePayment expires a pending payment now, whatever its expires_at.
func (s *Store) ExpirePayment(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	return s.transition(ctx, scope, ref, func(p *Payment, now time.Time) (string, error) {
		if p.Status != StatusPending {
			return "", &InvalidTransitionError{Status: p.Status}
		}
		p.Status, p.ExpiredAt = StatusExpired, &now
		return EventPaymentExpired, nil
	})
}

// transition locks the payment and lets change mutate it. change names the
// event its mutation causes ("" for none) and may refuse the caller: a
// mutation it made is saved with its event even when it refuses, because some
// refusals (a cancel arriving after the expiry) first bring the payment up to date.
// A change moves only the status and the lifecycle times: those are what is
// saved. Every PSP confirmation runs this, so its statements are prepared
// (see prepared.go), as are the ledger's (post).
func (s *Store) transition(
	ctx context.Context, scope Scope, ref string,
	change func(p *Payment, now time.Time) (event string, refusal error),
) (*Payment, error) {
	var p *Payment
	var refusal error
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if p, err = lockPayment(ctx, tx, scope, ref); err != nil {
			return err
		}
		now := s.Now()
		var eventType string
		eventType, refusal = change(p, now)
		if eventType == "" {
			return nil
		}
		p.UpdatedAt = now
		_, err = tx.Tx.ExecContext(ctx, `UPDATE payments SET status = $2, updated_at = $3, paid_at = $4,
			canceled_at = $5, expired_at = $6, refunded_at = $7 WHERE id = $1`,
			prepared(pgUUID(p.ID), p.Status, p.UpdatedAt, p.PaidAt, p.CanceledAt, p.ExpiredAt, p.RefundedAt)...)
		if err != nil {
			return fmt.Errorf("store: update payment: %w", err)
		}
		if err := s.recordPaymentEvent(ctx, tx, eventType, p); err != nil {
			return err
		}
		// Last, so the account's balance row stays locked only until commit.
		return s.settlePayment(ctx, tx, eventType, p)
	})
	if err != nil {
		return nil, err
	}
	if refusal != nil {
		return nil, refusal
	}
	return p, nil
}

// settlePayment posts the money a payment's change moves, in the change's
// transaction: a paid charge credits its amount and debits its fee; a refund
// (refused while a dispute holds the money, or when the available balance
// cannot cover it) returns the amount to the payer and the fee to the merchant.
func (s *Store) settlePayment(ctx context.Context, tx bun.Tx, eventType string, p *Payment) error {
	switch eventType {
	case EventPaymentPaid:
		return s.post(ctx, tx, posting{scope: p.Scope(), sourceID: p.ID.String(), at: p.UpdatedAt, lines: []movement{
			{BalanceAvailable, EntryPayment, p.AmountCents},
			{BalanceAvailable, EntryFee, -p.FeeCents},
		}})
	case EventPaymentRefunded:
		disputed, err := tx.NewSelect().Model((*Dispute)(nil)).
			Where("payment_id = ? AND status = ?", p.ID, DisputeOpen).Exists(ctx)
		if err != nil {
			return fmt.Errorf("store: open dispute: %w", err)
		}
		if disputed {
			return ErrPaymentDisputed
		}
		r, err := s.insertRefund(ctx, tx, p, RefundRequested, nil)
		if err != nil {
			return err
		}
		return s.post(ctx, tx, posting{scope: p.Scope(), sourceID: r.ID, at: p.UpdatedAt, covered: true, lines: []movement{
			{BalanceAvailable, EntryRefund, -p.AmountCents},
			{BalanceAvailable, EntryFeeRefund, p.FeeCents},
		}})
	}
	return nil
}

// ExpireOverdue moves up to limit pending payments whose expiry has passed to
// expired, each with its payment.expired event, and returns how many it moved.
// SKIP LOCKED lets several sweepers (or a concurrent cancel) run side by side.
func (s *Store) ExpireOverdue(ctx context.Context, limit int) (int, error) {
	var moved int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.Now()
		var due []Payment
		err := tx.NewSelect().Model(&due).
			Where("status = ? AND expires_at <= ?", StatusPending, now).
			OrderExpr("expires_at").Limit(int64(limit)).For("UPDATE SKIP LOCKED").Scan(ctx)
		if err != nil {
			return fmt.Errorf("store: select overdue payments: %w", err)
		}
		for i := range due {
			p := &due[i]
			p.Status, p.ExpiredAt, p.UpdatedAt = StatusExpired, &now, now
			if _, err := tx.NewUpdate().Model(p).Column("status", "expired_at", "updated_at").WherePK().Exec(ctx); err != nil {
				return fmt.Errorf("store: expire payment: %w", err)
			}
			if err := s.recordPaymentEvent(ctx, tx, EventPaymentExpired, p); err != nil {
				return err
			}
		}
		moved = len(due)
		return nil
	})
	return moved, err
}

// PaymentByID finds a payment by id in any account, for the payer's public
// pages, which are addressed by the unguessable id alone.
func (s *Store) PaymentByID(ctx context.Context, id uuid.UUID) (*Payment, error) {
	p := new(Payment)
	if err := s.idb(ctx).NewSelect().Model(p).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: payment by id: %w", translate(err))
	}
	return p, nil
}
