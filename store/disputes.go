package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/store/ids"
	"payments/store/internal/pg"
)

// Dispute statuses: open -> won | lost.
const (
	DisputeOpen = "open"
	DisputeWon  = "won"
	DisputeLost = "lost"
)

// DisputeStatuses lists every dispute status.
var DisputeStatuses = []string{DisputeOpen, DisputeWon, DisputeLost}

// DisputeReasons are the grounds PIX MED accepts for claiming a transfer back.
var DisputeReasons = []string{"fraud", "operational_failure"}

// Dispute is a PIX MED claim on a paid payment. It holds, in the pending
// balance, what is still the merchant's of the payment: its amount less
// what its refunds returned or are returning (a refund that fails while the
// dispute is open adds to the hold). Won releases the hold; lost returns it
// to the payer as a refund, with its share of the fee. While it is open the
// payment takes no new refund.
type Dispute struct {
	bun.BaseModel `bun:"table:disputes"`

	ID           string     `bun:"id,pk"`
	AccountID    string     `bun:"account_id"`
	Livemode     bool       `bun:"livemode"`
	PaymentID    uuid.UUID  `bun:"payment_id,type:uuid"`
	AmountCents  int64      `bun:"amount_cents"`
	Reason       string     `bun:"reason"`
	Status       string     `bun:"status"`
	PSPReference *string    `bun:"psp_reference"`
	CreatedAt    time.Time  `bun:"created_at"`
	UpdatedAt    time.Time  `bun:"updated_at"`
	ClosedAt     *time.Time `bun:"closed_at"`
}

// Scope is the account and mode the dispute belongs to.
func (d *Dispute) Scope() Scope { return Scope{AccountID: d.AccountID, Livemode: d.Livemode} }

// OpenDispute opens a dispute on the paid payment ref (the test helper's path).
// A payment in another status is an InvalidTransitionError; a payment that
// was disputed before is a ConflictError.
func (s *Store) OpenDispute(ctx context.Context, scope Scope, ref, reason string) (*Dispute, error) {
	var d *Dispute
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPayment(ctx, tx, scope, ref)
		if err != nil {
			return err
		}
		d, err = s.openDispute(ctx, tx, p, reason, nil)
		return err
	})
	return d, err
}

// openDispute holds, under a new dispute, what is still the merchant's of
// the locked payment p.
func (s *Store) openDispute(ctx context.Context, tx bun.Tx, p *Payment, reason string, pspRef *string) (*Dispute, error) {
	if p.Status != StatusPaid {
		return nil, &InvalidTransitionError{Status: p.Status}
	}
	sums, err := refundSums(ctx, tx, p.ID)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	d := &Dispute{
		ID: ids.New(ids.PrefixDispute), AccountID: p.AccountID, Livemode: p.Livemode, PaymentID: p.ID,
		AmountCents: max(p.ReceivedCents()-sums.outstanding, 0), Reason: reason, Status: DisputeOpen, PSPReference: pspRef,
		CreatedAt: now, UpdatedAt: now,
	}
	if _, err := tx.NewInsert().Model(d).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: insert dispute: %w", translate(err))
	}
	err = s.post(ctx, tx, posting{scope: d.Scope(), sourceID: d.ID, at: now, lines: []movement{
		{BalanceAvailable, EntryDisputeHold, -d.AmountCents},
		{BalancePending, EntryDisputeHold, d.AmountCents},
	}})
	if err != nil {
		return nil, err
	}
	return d, s.recordEvent(ctx, tx, EventDisputeOpened, d.AccountID, d.Livemode, d.ID, d, now)
}

// CloseDispute moves an open dispute to status (won or lost). Closing it
// again with the same status returns it unchanged; the other status is an
// InvalidTransitionError.
func (s *Store) CloseDispute(ctx context.Context, scope Scope, id, status string) (*Dispute, error) {
	d := new(Dispute)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockDisputed(ctx, tx, d, "id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode)
		if err != nil {
			return err
		}
		return s.closeDispute(ctx, tx, d, p, status)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// lockDisputed locks, for tx, the payment of the dispute where selects and
// then the dispute, read into d: payment first, as every path that locks
// both does (a refund's end locks the payment before it grows the hold).
func lockDisputed(ctx context.Context, tx bun.Tx, d *Dispute, where string, args ...any) (*Payment, error) {
	if err := tx.NewSelect().Model(d).Where(where, args...).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: dispute: %w", translate(err))
	}
	p, err := lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(d.PaymentID))
	if err != nil {
		return nil, fmt.Errorf("store: disputed payment: %w", err)
	}
	if err := tx.NewSelect().Model(d).WherePK().For("UPDATE").Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: dispute: %w", translate(err))
	}
	return p, nil
}

// closeDispute settles the locked dispute d of the locked payment p. Won
// releases the hold. Lost returns the hold to the payer: a refund of what
// it held (none when it held nothing) with its share of the fee, and the
// payment becomes refunded once its refunds that succeeded add up to it.
func (s *Store) closeDispute(ctx context.Context, tx bun.Tx, d *Dispute, p *Payment, status string) error {
	switch {
	case d.Status == status:
		return nil
	case d.Status != DisputeOpen:
		return &InvalidTransitionError{Object: "dispute", Status: d.Status}
	}
	now := s.Now()
	d.Status, d.UpdatedAt, d.ClosedAt = status, now, &now
	if _, err := tx.NewUpdate().Model(d).Column("status", "updated_at", "closed_at").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("store: close dispute: %w", err)
	}
	if status == DisputeWon {
		err := s.post(ctx, tx, posting{scope: d.Scope(), sourceID: d.ID, at: now, lines: []movement{
			{BalancePending, EntryDisputeRelease, -d.AmountCents},
			{BalanceAvailable, EntryDisputeRelease, d.AmountCents},
		}})
		if err != nil {
			return err
		}
		return s.recordEvent(ctx, tx, EventDisputeWon, d.AccountID, d.Livemode, d.ID, d, now)
	}

	if d.AmountCents > 0 {
		sums, err := refundSums(ctx, tx, p.ID)
		if err != nil {
			return err
		}
		r, err := s.insertLostDisputeRefund(ctx, tx, p, d, sums.feeShare(p, d.AmountCents), now)
		if err != nil {
			return err
		}
		if err := addRefunded(ctx, tx, p, r); err != nil {
			return err
		}
		err = s.post(ctx, tx, posting{scope: d.Scope(), sourceID: d.ID, at: now, lines: []movement{
			{BalancePending, EntryDisputeLoss, -d.AmountCents},
			{BalanceAvailable, EntryFeeRefund, r.FeeCents},
		}})
		if err != nil {
			return err
		}
	}
	if err := s.recordEvent(ctx, tx, EventDisputeLost, d.AccountID, d.Livemode, d.ID, d, now); err != nil {
		return err
	}
	return s.refundedInFull(ctx, tx, p)
}

// PSPDispute is the PSP's word on a dispute: its own reference, the PIX
// transfer disputed (endToEndId), the reason and the status now.
type PSPDispute struct {
	Reference  string
	EndToEndID string
	Reason     string
	Status     string
}

// ApplyPSPDispute brings the dispute the PSP names up to the status it
// reports, in one transaction. An unknown reference opens a dispute on the
// payment the transfer paid (and closes it at once when the PSP already
// reports won or lost, so a lost "opened" notification costs nothing). A
// repeated status changes nothing and reports duplicate. A transfer that paid
// no payment is ErrNotFound.
func (s *Store) ApplyPSPDispute(ctx context.Context, in PSPDispute) (d *Dispute, duplicate bool, err error) {
	d = new(Dispute)
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockDisputed(ctx, tx, d, "psp_reference = ?", in.Reference)
		switch {
		case errors.Is(err, ErrNotFound):
			p, err := lockPaymentWhere(ctx, tx,
				"id = (SELECT payment_id FROM psp_notifications WHERE end_to_end_id = $1 AND outcome = $2)", in.EndToEndID, PixPaid)
			if err != nil {
				return fmt.Errorf("store: payment by endToEndId: %w", err)
			}
			// The same notification, delivered twice at once, opened it
			// while this one waited for the payment.
			err = tx.NewSelect().Model(d).Where("psp_reference = ?", in.Reference).For("UPDATE").Scan(ctx)
			if err == nil {
				return s.applyPSPStatus(ctx, tx, d, p, in.Status, &duplicate)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("store: dispute by reference: %w", err)
			}
			opened, err := s.openDispute(ctx, tx, p, in.Reason, &in.Reference)
			if err != nil {
				return err
			}
			*d = *opened
			if in.Status == DisputeOpen {
				return nil
			}
			return s.closeDispute(ctx, tx, d, p, in.Status)
		case err != nil:
			return fmt.Errorf("store: dispute by reference: %w", err)
		}
		return s.applyPSPStatus(ctx, tx, d, p, in.Status, &duplicate)
	})
	if err != nil {
		return nil, false, err
	}
	return d, duplicate, nil
}

// applyPSPStatus moves the locked dispute d of the locked payment p to the
// status the PSP reports; the status it has already is a duplicate.
func (s *Store) applyPSPStatus(ctx context.Context, tx bun.Tx, d *Dispute, p *Payment, status string, duplicate *bool) error {
	switch {
	case d.Status == status:
		*duplicate = true
		return nil
	case status == DisputeOpen:
		return &InvalidTransitionError{Object: "dispute", Status: d.Status} // a closed dispute never reopens
	}
	return s.closeDispute(ctx, tx, d, p, status)
}

// Dispute returns one of the scope's disputes.
func (s *Store) Dispute(ctx context.Context, scope Scope, id string) (*Dispute, error) {
	d := new(Dispute)
	err := s.idb(ctx).NewSelect().Model(d).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: dispute: %w", translate(err))
	}
	return d, nil
}

// DisputesForPayment lists a payment's disputes (at most one).
func (s *Store) DisputesForPayment(ctx context.Context, scope Scope, paymentID uuid.UUID) ([]Dispute, error) {
	out, err := ofPayment[Dispute](ctx, s.idb(ctx), scope, paymentID, "id")
	if err != nil {
		return nil, fmt.Errorf("store: disputes of payment: %w", err)
	}
	return out, nil
}

// UnderOpenDispute returns which of the scope's payments ids have an open
// dispute: what a list of payments needs to show them as disputed.
func (s *Store) UnderOpenDispute(ctx context.Context, scope Scope, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	out := map[uuid.UUID]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	var disputed []uuid.UUID
	err := s.idb(ctx).NewSelect().Model((*Dispute)(nil)).Column("payment_id").
		Where("account_id = ? AND livemode = ? AND status = ? AND payment_id IN (?)", scope.AccountID, scope.Livemode, DisputeOpen, bun.List(ids)).
		Scan(ctx, &disputed)
	if err != nil {
		return nil, fmt.Errorf("store: payments under open dispute: %w", err)
	}
	for _, id := range disputed {
		out[id] = true
	}
	return out, nil
}

// ListDisputes returns one page of the scope's disputes, newest first.
func (s *Store) ListDisputes(ctx context.Context, p IDListParams) ([]Dispute, bool, error) {
	var out []Dispute
	hasMore, err := listByID(ctx, s.idb(ctx).NewSelect().Model(&out), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list disputes: %w", err)
	}
	return out, hasMore, nil
}
