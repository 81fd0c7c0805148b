package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/store/ids"
	"payments/store/internal/pg"
)

// Why a payment was refunded.
const (
	RefundRequested   = "requested"    // the merchant asked
	RefundDisputeLost = "dispute_lost" // a lost dispute returned the money
)

// Refund statuses: pending -> succeeded | failed. A live refund is pending
// while its devolução is at the PSP; a test refund until a test helper ends it.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// RefundStatuses lists every refund status.
var RefundStatuses = []string{RefundPending, RefundSucceeded, RefundFailed}

// MaxRefundDescription is what a devolução carries to the payer (API Pix: 140).
const MaxRefundDescription = 140

// ErrRefundTooLarge means a refund asked for more than the payment has
// left to refund; ErrNothingToRefund, that its refunds (some perhaps still
// pending) already add up to its amount.
var (
	ErrRefundTooLarge  = errors.New("store: the refund is larger than what the payment has left to refund")
	ErrNothingToRefund = errors.New("store: the payment's refunds already add up to its amount")
)

// Refund returns (part of) a paid payment's amount to the payer. Its
// amount leaves the available balance when it is created, with the part of
// the fee it gives back; a failed refund brings both back.
type Refund struct {
	bun.BaseModel `bun:"table:refunds"`

	ID          string    `bun:"id,pk"`
	AccountID   string    `bun:"account_id"`
	Livemode    bool      `bun:"livemode"`
	PaymentID   uuid.UUID `bun:"payment_id,type:uuid"`
	AmountCents int64     `bun:"amount_cents"`
	// FeeCents is the part of the payment's fee this refund gives back.
	FeeCents    int64   `bun:"fee_cents"`
	Reason      string  `bun:"reason"`
	Status      string  `bun:"status"`
	Description *string `bun:"description"`
	DisputeID   *string `bun:"dispute_id"`
	// EndToEndID is the Pix the devolução returns; ReturnID the devolução's
	// own id at the PSP (rtrId), once it has one.
	EndToEndID    *string    `bun:"end_to_end_id"`
	ReturnID      *string    `bun:"return_id"`
	FailureReason *string    `bun:"failure_reason"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	CompletedAt   *time.Time `bun:"completed_at"`
}

// Scope is the account and mode the refund belongs to.
func (r *Refund) Scope() Scope { return Scope{AccountID: r.AccountID, Livemode: r.Livemode} }

// DevolucaoID is the refund's id at the PSP: API Pix allows letters and
// digits only, so the id without its prefix (unique as it is).
func (r *Refund) DevolucaoID() string { return strings.TrimPrefix(r.ID, ids.PrefixRefund+"_") }

// NewRefund asks for a refund. AmountCents 0 is all the payment has left.
type NewRefund struct {
	AmountCents int64
	Description *string
}

// CreateRefund refunds (part of) the paid payment ref: a pending refund
// whose amount leaves the available balance now, with the part of the fee
// it gives back; in live mode with the devolução that returns it queued for
// the PSP. A payment in another status is an InvalidTransitionError, one
// with an open dispute ErrPaymentDisputed, an amount over what is left
// ErrRefundTooLarge, and a balance that cannot cover it ErrBalanceInsufficient.
func (s *Store) CreateRefund(ctx context.Context, scope Scope, ref string, in NewRefund) (*Refund, error) {
	var r *Refund
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPayment(ctx, tx, scope, ref)
		if err != nil {
			return err
		}
		r, err = s.createRefund(ctx, tx, p, in)
		return err
	})
	return r, err
}

func (s *Store) createRefund(ctx context.Context, tx bun.Tx, p *Payment, in NewRefund) (*Refund, error) {
	if p.Status != StatusPaid {
		return nil, &InvalidTransitionError{Status: p.Status}
	}
	disputed, err := tx.NewSelect().Model((*Dispute)(nil)).Where("payment_id = ? AND status = ?", p.ID, DisputeOpen).Exists(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: open dispute: %w", err)
	}
	if disputed {
		return nil, ErrPaymentDisputed
	}
	var before int64
	err = tx.NewSelect().Model((*Refund)(nil)).ColumnExpr("coalesce(sum(amount_cents), 0)").
		Where("payment_id = ? AND status <> ?", p.ID, RefundFailed).Scan(ctx, &before)
	if err != nil {
		return nil, fmt.Errorf("store: refunded so far: %w", err)
	}
	left := p.AmountCents - before
	amount := in.AmountCents
	switch {
	case left <= 0:
		return nil, ErrNothingToRefund
	case amount == 0:
		amount = left
	case amount > left:
		return nil, ErrRefundTooLarge
	}
	now := s.Now()
	r := &Refund{
		ID: ids.New(ids.PrefixRefund), AccountID: p.AccountID, Livemode: p.Livemode, PaymentID: p.ID,
		AmountCents: amount, FeeCents: feeShare(p.FeeCents, p.AmountCents, before, amount), Reason: RefundRequested,
		Status: RefundPending, Description: in.Description, CreatedAt: now, UpdatedAt: now,
	}
	if p.Livemode {
		// The devolução returns the Pix that paid the charge.
		var e2e string
		err := tx.NewSelect().Model((*PixNotification)(nil)).Column("end_to_end_id").
			Where("payment_id = ? AND outcome = ?", p.ID, PixPaid).Limit(1).Scan(ctx, &e2e)
		if err != nil {
			return nil, fmt.Errorf("store: the transfer that paid %s: %w", p.ID, translate(err))
		}
		r.EndToEndID = &e2e
	}
	if _, err := tx.NewInsert().Model(r).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: insert refund: %w", translate(err))
	}
	err = s.post(ctx, tx, posting{scope: r.Scope(), sourceID: r.ID, at: now, covered: true, lines: []movement{
		{BalanceAvailable, EntryRefund, -r.AmountCents},
		{BalanceAvailable, EntryFeeRefund, r.FeeCents},
	}})
	if err != nil {
		return nil, err
	}
	if p.Livemode {
		if err := s.queueCall(ctx, tx, &r.AccountID, CallDevolucaoCreate, r.ID, time.Time{}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// feeShare is the part of a payment's fee a refund of amount gives back
// when before was refunded already: its share of the fee, rounded down so
// that the shares of refunds adding up to the whole amount add up to the
// whole fee.
func feeShare(fee, paid, before, amount int64) int64 {
	return fee*(before+amount)/paid - fee*before/paid
}

// RefundResult is how a pending refund ended.
type RefundResult struct {
	Status        string  // RefundSucceeded or RefundFailed
	ReturnID      *string // the devolução's id at the PSP (rtrId)
	FailureReason *string
}

// SettleRefund ends the pending refund id (scope nil: any account, for the
// PSP worker). Succeeded: refund.succeeded, and the payment becomes refunded
// (payment.refunded) once its refunds add up to its amount. Failed:
// refund.failed, and the amount and fee share come back. The same end again
// returns it unchanged with duplicate set; the other end is an
// InvalidTransitionError.
func (s *Store) SettleRefund(ctx context.Context, scope *Scope, id string, res RefundResult) (r *Refund, duplicate bool, err error) {
	r = new(Refund)
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model(r).Where("id = ?", id)
		if scope != nil {
			q = q.Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode)
		}
		if err := q.For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("store: refund: %w", translate(err))
		}
		switch {
		case r.Status == res.Status:
			duplicate = true
			return nil
		case r.Status != RefundPending:
			return &InvalidTransitionError{Object: "refund", Status: r.Status}
		}
		return s.settleRefund(ctx, tx, r, res)
	})
	if err != nil {
		return nil, false, err
	}
	return r, duplicate, nil
}

func (s *Store) settleRefund(ctx context.Context, tx bun.Tx, r *Refund, res RefundResult) error {
	now := s.Now()
	r.Status, r.UpdatedAt, r.CompletedAt = res.Status, now, &now
	if res.ReturnID != nil {
		r.ReturnID = res.ReturnID
	}
	event := EventRefundSucceeded
	if res.Status == RefundFailed {
		r.FailureReason, event = res.FailureReason, EventRefundFailed
	}
	_, err := tx.NewUpdate().Model(r).Column("status", "updated_at", "completed_at", "return_id", "failure_reason").
		WherePK().Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: settle refund: %w", err)
	}
	if res.Status == RefundFailed {
		err := s.post(ctx, tx, posting{scope: r.Scope(), sourceID: r.ID, at: now, lines: []movement{
			{BalanceAvailable, EntryRefundReversal, r.AmountCents},
			{BalanceAvailable, EntryFeeRefundReversal, -r.FeeCents},
		}})
		if err != nil {
			return err
		}
		return s.recordEvent(ctx, tx, event, r.AccountID, r.Livemode, r.ID, r, now)
	}
	if err := s.recordEvent(ctx, tx, event, r.AccountID, r.Livemode, r.ID, r, now); err != nil {
		return err
	}
	// Fully refunded: the payment says so.
	p, err := lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(r.PaymentID))
	if err != nil {
		return err
	}
	var refunded int64
	err = tx.NewSelect().Model((*Refund)(nil)).ColumnExpr("coalesce(sum(amount_cents), 0)").
		Where("payment_id = ? AND status = ?", r.PaymentID, RefundSucceeded).Scan(ctx, &refunded)
	if err != nil {
		return fmt.Errorf("store: refunded: %w", err)
	}
	if refunded < p.AmountCents || p.Status != StatusPaid {
		return nil
	}
	_, err = s.apply(ctx, tx, p, func(p *Payment, now time.Time) (string, error) {
		p.Status, p.RefundedAt = StatusRefunded, &now
		return EventPaymentRefunded, nil
	})
	return err
}

// RefundPayment refunds a paid payment in full, in one call: in test mode
// the refund succeeds at once (the payment is refunded when it returns); in
// live mode it is pending while the devolução is at the PSP, and the
// payment becomes refunded when it succeeds.
func (s *Store) RefundPayment(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	var p *Payment
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if p, err = lockPayment(ctx, tx, scope, ref); err != nil {
			return err
		}
		r, err := s.createRefund(ctx, tx, p, NewRefund{})
		if err != nil || p.Livemode {
			return err
		}
		if err := s.settleRefund(ctx, tx, r, RefundResult{Status: RefundSucceeded}); err != nil {
			return err
		}
		p, err = lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(p.ID))
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// insertRefund records the refund of a lost dispute: the payment's whole
// amount, done (the payer's bank took the money back).
func (s *Store) insertRefund(ctx context.Context, tx bun.Tx, p *Payment, reason string, disputeID *string) (*Refund, error) {
	r := &Refund{
		ID: ids.New(ids.PrefixRefund), AccountID: p.AccountID, Livemode: p.Livemode, PaymentID: p.ID,
		AmountCents: p.AmountCents, FeeCents: p.FeeCents, Reason: reason, Status: RefundSucceeded, DisputeID: disputeID,
		CreatedAt: p.UpdatedAt, UpdatedAt: p.UpdatedAt, CompletedAt: &p.UpdatedAt,
	}
	if _, err := tx.NewInsert().Model(r).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: insert refund: %w", translate(err))
	}
	return r, nil
}

// RefundsForPayment lists a payment's refunds, oldest first.
func (s *Store) RefundsForPayment(ctx context.Context, scope Scope, paymentID uuid.UUID) ([]Refund, error) {
	out, err := ofPayment[Refund](ctx, s.idb(ctx), scope, paymentID, "id")
	if err != nil {
		return nil, fmt.Errorf("store: refunds: %w", err)
	}
	return out, nil
}

// Refund returns one of the scope's refunds.
func (s *Store) Refund(ctx context.Context, scope Scope, id string) (*Refund, error) {
	r := new(Refund)
	err := s.idb(ctx).NewSelect().Model(r).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: refund: %w", translate(err))
	}
	return r, nil
}

// RefundByID returns the refund id of any account, for the PSP worker.
func (s *Store) RefundByID(ctx context.Context, id string) (*Refund, error) {
	r := new(Refund)
	if err := s.idb(ctx).NewSelect().Model(r).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: refund: %w", translate(err))
	}
	return r, nil
}

// RefundByDevolucaoID returns the refund whose devolução id at the PSP this
// is (a callback names devoluções so).
func (s *Store) RefundByDevolucaoID(ctx context.Context, devolucaoID string) (*Refund, error) {
	return s.RefundByID(ctx, ids.PrefixRefund+"_"+devolucaoID)
}

// ListRefunds returns one page of the scope's refunds, newest first.
func (s *Store) ListRefunds(ctx context.Context, p IDListParams) ([]Refund, bool, error) {
	var out []Refund
	hasMore, err := listByID(ctx, s.idb(ctx).NewSelect().Model(&out), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list refunds: %w", err)
	}
	return out, hasMore, nil
}
