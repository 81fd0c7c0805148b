package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/pix/calendar"
)

// Outcomes of a PSP settlement notification.
const (
	PixPaid           = "paid"
	PixAmountMismatch = "amount_mismatch"
	PixUnknownTxID    = "unknown_txid"
	// PixAlreadyPaid is a second transfer for a charge that is paid already:
	// real money that support must return.
	PixAlreadyPaid = "already_paid"
)

// PixOutcomes lists every outcome of a received transfer.
var PixOutcomes = []string{PixPaid, PixAmountMismatch, PixUnknownTxID, PixAlreadyPaid}

// PixNotification is one received PIX transfer.
type PixNotification struct {
	bun.BaseModel `bun:"table:psp_notifications"`

	EndToEndID  string          `bun:"end_to_end_id,pk"`
	TxID        string          `bun:"txid"`
	AmountCents int64           `bun:"amount_cents"`
	SettledAt   *time.Time      `bun:"settled_at"`
	PaymentID   *uuid.UUID      `bun:"payment_id,type:uuid"`
	Outcome     string          `bun:"outcome"`
	Raw         json.RawMessage `bun:"raw,type:jsonb"`
	ReceivedAt  time.Time       `bun:"received_at"`
	// The return of a transfer that paid nothing (ReturnTransfer): its
	// status (TransferReturnPending ...), the devolução's id at the PSP and
	// the PSP's own (rtrId), why it failed, when it was returned.
	ReturnStatus  *string    `bun:"return_status"`
	ReturnID      *string    `bun:"return_id"`
	ReturnRtrID   *string    `bun:"return_rtr_id"`
	ReturnFailure *string    `bun:"return_failure"`
	ReturnedAt    *time.Time `bun:"returned_at"`
	// Duplicate is true when this endToEndId had been received before; the
	// stored outcome is returned and nothing changes.
	Duplicate bool `bun:"-"`
}

// BookedEndToEndIDs says which of ids are booked already: the reconciler's
// walk re-reads its overlap every period and skips those in one query
// instead of a transaction each.
func (s *Store) BookedEndToEndIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	set := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return set, nil
	}
	var booked []string
	if err := s.idb(ctx).NewSelect().Table("psp_notifications").Column("end_to_end_id").
		Where("end_to_end_id IN (?)", bun.List(ids)).Scan(ctx, &booked); err != nil {
		return nil, fmt.Errorf("store: booked pix: %w", err)
	}
	for _, id := range booked {
		set[id] = true
	}
	return set, nil
}

// RecordPixNotification stores a settlement and applies it in one
// transaction: the charge whose txid matches, with the exact amount, becomes
// paid (with its payment.paid event), whatever its status but paid or
// refunded. Anything else is recorded for support and changes no payment.
func (s *Store) RecordPixNotification(ctx context.Context, n *PixNotification) error {
	n.ReceivedAt = s.Now()
	n.Outcome = PixUnknownTxID // provisional, replaced below in the same transaction
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewInsert().Model(n).On("CONFLICT (end_to_end_id) DO NOTHING").Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: record pix notification: %w", err)
		}
		if inserted, _ := res.RowsAffected(); inserted == 0 {
			prev := new(PixNotification)
			if err := tx.NewSelect().Model(prev).Where("end_to_end_id = ?", n.EndToEndID).Scan(ctx); err != nil {
				return fmt.Errorf("store: read pix notification: %w", err)
			}
			*n = *prev
			n.Duplicate = true
			return nil
		}
		// Real transfers pay live charges only.
		p, err := lockPaymentWhere(ctx, tx, "correlation_id = $1 AND livemode", n.TxID)
		switch {
		case errors.Is(err, ErrNotFound):
			// Or a live static code: a payment of its own into it.
			paid, err := s.payStaticCode(ctx, tx, n)
			if err != nil {
				return err
			}
			n.Outcome, n.PaymentID = PixUnknownTxID, nil
			if paid != nil {
				n.Outcome, n.PaymentID = PixPaid, &paid.ID
			}
		case err != nil:
			return fmt.Errorf("store: payment by txid: %w", err)
		case p.AmountDue(settledOn(n, s.Now())).AmountDueCents != n.AmountCents:
			// A due-date charge is paid by what it owes on the day the
			// transfer settled, in Brasília: the payer's bank computes it
			// from the charge's terms as we do (pix/cobv). Anything else
			// pays nothing and is returned, as a wrong amount on a charge is.
			n.Outcome, n.PaymentID = PixAmountMismatch, &p.ID
		case p.Status == StatusPaid || p.Status == StatusRefunded:
			n.Outcome, n.PaymentID = PixAlreadyPaid, &p.ID
		default:
			n.Outcome, n.PaymentID = PixPaid, &p.ID
			p.AmountPaidCents = n.AmountCents
			if p.DueTerms != nil {
				p.PaidOn = ptr(settledOn(n, s.Now()).Time())
			}
			// The PSP's confirmation, written by its worker: its own audit row.
			audit := &PaymentAudit{Action: "payment.paid", Also: func(*Payment) Changes {
				return Changes{"end_to_end_id": {nil, n.EndToEndID}}
			}}
			if _, err := s.applyAudited(ctx, tx, p, markPaidAt(n.SettledAt), audit); err != nil {
				return err
			}
		}
		_, err = tx.NewUpdate().Model(n).Column("outcome", "payment_id").WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: pix notification outcome: %w", err)
		}
		return nil
	})
}

// payStaticCode pays the transfer n into the live static code its txid
// names, as a payment of its own (nil, nil when no code has that txid; a
// code that takes no payment, or not this amount, pays nothing and the
// transfer waits for support to return it, as one naming no charge does).
func (s *Store) payStaticCode(ctx context.Context, tx bun.Tx, n *PixNotification) (*Payment, error) {
	if n.TxID == "" {
		return nil, nil
	}
	q := new(PixQRCode)
	err := tx.NewSelect().Model(q).Where("txid = ? AND livemode", n.TxID).For("UPDATE").Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("store: static code by txid: %w", err)
	}
	acct, err := accountIn(ctx, tx, q.AccountID)
	if err != nil {
		return nil, err
	}
	// The payment's store calls join tx; their balance statements are
	// written before tx commits, as any transaction's are.
	actx := withAmbient(ctx, tx)
	p, err := s.payIntoCode(actx, tx, acct, q, n.AmountCents)
	switch {
	case errors.Is(err, ErrQRCodeNotPayable) || errors.Is(err, ErrQRCodeAmount):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return p, flushBalances(actx)
}

// PixNotifications lists received transfers, newest first; problemsOnly
// keeps those that did not pay a charge.
func (s *Store) PixNotifications(ctx context.Context, problemsOnly bool, limit int) ([]PixNotification, error) {
	var out []PixNotification
	q := s.idb(ctx).NewSelect().Model(&out).Order("received_at DESC").Limit(int64(limit))
	if problemsOnly {
		q = q.Where("outcome <> ?", PixPaid)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: pix notifications: %w", err)
	}
	return out, nil
}

// PixNotificationsForPayment lists the transfers matched to a payment, oldest first.
func (s *Store) PixNotificationsForPayment(ctx context.Context, paymentID uuid.UUID) ([]PixNotification, error) {
	var out []PixNotification
	err := s.idb(ctx).NewSelect().Model(&out).Where("payment_id = ?", paymentID).Order("received_at").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: pix notifications of payment: %w", err)
	}
	return out, nil
}

// settledOn is the date in Brasília a transfer settled (when it was
// received, when the PSP gave no time).
func settledOn(n *PixNotification, now time.Time) calendar.Date {
	if n.SettledAt != nil {
		return calendar.Today(*n.SettledAt)
	}
	return calendar.Today(now)
}
