package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"payments/store/ids"
)

// The rows a report is made of, read a page at a time in statements of
// their own (no transaction held against the writers), oldest first, each
// with what an accountant matches it on: the payment's id, external_id,
// txid and the end-to-end id of the Pix that paid it.

// ReportPageSize is how many rows a report reads at a time.
const ReportPageSize = 2000

// paidE2E is the end-to-end id of the Pix that paid payment p.
const paidE2E = `LEFT JOIN LATERAL (SELECT n.end_to_end_id FROM psp_notifications n
		WHERE n.payment_id = p.id AND n.outcome = 'paid' ORDER BY n.received_at LIMIT 1) e ON true`

// PaymentReportRow is a payment with the end-to-end id that paid it.
type PaymentReportRow struct {
	Payment    `bun:",extend"`
	EndToEndID *string `bun:"paid_end_to_end_id,scanonly"`
}

// ReportPayments reads the report's payments created after the payment
// cursor (uuid.Nil: from the first).
func (s *Store) ReportPayments(ctx context.Context, r *Report, cursor uuid.UUID) (rows []PaymentReportRow, err error) {
	err = s.reportRead(ctx, r, func(ctx context.Context) error {
		rows = rows[:0]
		return s.idb(ctx).NewSelect().Model(&rows).
			ColumnExpr("p.*").ColumnExpr("e.end_to_end_id AS paid_end_to_end_id").
			ModelTableExpr("payments AS p").Join(paidE2E).
			Where("p.account_id = ? AND p.livemode = ?", r.AccountID, r.Livemode).
			Where("p.id > ? AND p.id >= ? AND p.id <= ?", cursor, ids.PaymentFloor(r.PeriodStart), ids.PaymentCeiling(r.PeriodEnd)).
			Where("p.created_at >= ? AND p.created_at < ?", r.PeriodStart, r.PeriodEnd).
			OrderExpr("p.id").Limit(ReportPageSize).Scan(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("store: report payments: %w", err)
	}
	return rows, nil
}

// RefundReportRow is a refund with its payment's keys.
type RefundReportRow struct {
	Refund            `bun:",extend"`
	PaymentExternalID *string `bun:"payment_external_id,scanonly"`
	PaymentTxID       string  `bun:"payment_txid,scanonly"`
}

// ReportRefunds reads the report's refunds after the id cursor ("": from
// the first).
func (s *Store) ReportRefunds(ctx context.Context, r *Report, cursor string) (rows []RefundReportRow, err error) {
	err = s.reportRead(ctx, r, func(ctx context.Context) error {
		rows = rows[:0]
		return s.idb(ctx).NewSelect().Model(&rows).
			ColumnExpr("refund.*").ColumnExpr("p.external_id AS payment_external_id, p.correlation_id AS payment_txid").
			Join("JOIN payments AS p ON p.id = refund.payment_id").
			Where("refund.account_id = ? AND refund.livemode = ? AND refund.id > ?", r.AccountID, r.Livemode, cursor).
			Where("refund.created_at >= ? AND refund.created_at < ?", r.PeriodStart, r.PeriodEnd).
			OrderExpr("refund.id").Limit(ReportPageSize).Scan(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("store: report refunds: %w", err)
	}
	return rows, nil
}

// ReportPayouts reads the report's withdrawals after the id cursor.
func (s *Store) ReportPayouts(ctx context.Context, r *Report, cursor string) (rows []Withdrawal, err error) {
	err = s.reportRead(ctx, r, func(ctx context.Context) error {
		rows = rows[:0]
		return s.idb(ctx).NewSelect().Model(&rows).
			Where("account_id = ? AND livemode = ? AND id > ?", r.AccountID, r.Livemode, cursor).
			Where("created_at >= ? AND created_at < ?", r.PeriodStart, r.PeriodEnd).
			Order("id").Limit(ReportPageSize).Scan(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("store: report payouts: %w", err)
	}
	return rows, nil
}

// LedgerReportRow is a ledger entry with the payment behind it (its own,
// its refund's or its dispute's) and the withdrawal's.
type LedgerReportRow struct {
	LedgerEntry       `bun:",extend"`
	PaymentID         *uuid.UUID `bun:"payment_id,type:uuid,scanonly"`
	PaymentExternalID *string    `bun:"payment_external_id,scanonly"`
	PaymentTxID       *string    `bun:"payment_txid,scanonly"`
	PaymentEndToEndID *string    `bun:"paid_end_to_end_id,scanonly"`
	PaymentDesc       *string    `bun:"payment_description,scanonly"`
	WithdrawalPixKey  *string    `bun:"withdrawal_pix_key,scanonly"`
	WithdrawalE2E     *string    `bun:"withdrawal_end_to_end_id,scanonly"`
}

// ledgerSlack bounds how far an entry's created_at (its transaction's
// clock) and its id (its insert) can disagree: a report's ledger starts
// reading ids this long before its period and stops this long after.
const ledgerSlack = time.Minute

// LedgerBalancesBefore is the report's account's balances made of the
// entries before t: at its period's start, where its running balances
// begin; at its end, what its statement closes with.
func (s *Store) LedgerBalancesBefore(ctx context.Context, r *Report, t time.Time) (available, pending int64, err error) {
	err = s.reportRead(ctx, r, func(ctx context.Context) error {
		return s.idb(ctx).NewRaw(`SELECT
				coalesce(sum(amount_cents) FILTER (WHERE balance = 'available'), 0),
				coalesce(sum(amount_cents) FILTER (WHERE balance = 'pending'), 0)
			FROM ledger_entries WHERE account_id = ? AND livemode = ? AND created_at < ?`,
			r.AccountID, r.Livemode, t).Scan(ctx, &available, &pending)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: ledger balances: %w", err)
	}
	return available, pending, nil
}

// LedgerStart is the id cursor a report's ledger is read from: the last
// entry made well before its period (entries are read in id order, which
// is their inserts', and kept by created_at).
func (s *Store) LedgerStart(ctx context.Context, r *Report) (cursor int64, err error) {
	err = s.reportRead(ctx, r, func(ctx context.Context) error {
		return s.idb(ctx).NewRaw(`SELECT coalesce(max(id), 0) FROM ledger_entries
			WHERE account_id = ? AND livemode = ? AND created_at < ?`,
			r.AccountID, r.Livemode, r.PeriodStart.Add(-ledgerSlack)).Scan(ctx, &cursor)
	})
	if err != nil {
		return 0, fmt.Errorf("store: ledger start: %w", err)
	}
	return cursor, nil
}

// ReportLedger reads the next page of entries after the id cursor, in id
// order, and says whether the report's ledger is done: its caller keeps
// the rows inside the period. done comes with the first page that reaches
// past the period by ledgerSlack, or the last page there is.
func (s *Store) ReportLedger(ctx context.Context, r *Report, cursor int64) (rows []LedgerReportRow, done bool, err error) {
	err = s.reportRead(ctx, r, func(ctx context.Context) error {
		rows = rows[:0]
		return s.idb(ctx).NewSelect().Model(&rows).
			ColumnExpr("ledger_entry.*").
			ColumnExpr("p.id AS payment_id, p.external_id AS payment_external_id, p.correlation_id AS payment_txid").
			ColumnExpr("p.description AS payment_description, e.end_to_end_id AS paid_end_to_end_id").
			ColumnExpr("w.pix_key AS withdrawal_pix_key, w.end_to_end_id AS withdrawal_end_to_end_id").
			Join(entrySources).
			Join(paidE2E).
			Where("ledger_entry.account_id = ? AND ledger_entry.livemode = ? AND ledger_entry.id > ?", r.AccountID, r.Livemode, cursor).
			OrderExpr("ledger_entry.id").Limit(ReportPageSize).Scan(ctx)
	})
	if err != nil {
		return nil, false, fmt.Errorf("store: report ledger: %w", err)
	}
	done = len(rows) < ReportPageSize || !rows[len(rows)-1].CreatedAt.Before(r.PeriodEnd.Add(ledgerSlack))
	return rows, done, nil
}

// reportRead runs read on the replica when the report's period ended
// longer ago than the replica may lag (so it holds every row of it), else
// on the primary.
func (s *Store) reportRead(ctx context.Context, r *Report, read func(ctx context.Context) error) error {
	if s.replica != nil && s.Now().Sub(r.PeriodEnd) > s.replica.cfg.MaxLag {
		ctx = MayLag(ctx)
	}
	return s.lagging(ctx, read)
}
