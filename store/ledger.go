package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The two balances every account has per mode.
const (
	BalanceAvailable = "available"
	BalancePending   = "pending"
)

// Ledger entry types: why money moved.
const (
	EntryPayment            = "payment"               // a paid charge, credited in full
	EntryFee                = "fee"                   // our fee for that charge
	EntryRefund             = "refund"                // a refund returns the amount to the payer
	EntryFeeRefund          = "fee_refund"            // ...and the fee to the merchant
	EntryRefundReversal     = "refund_reversal"       // a failed refund's amount comes back
	EntryFeeRefundReversal  = "fee_refund_reversal"   // ...and the fee it gave back goes again
	EntryDisputeHold        = "dispute_hold"          // an open dispute moves the amount to pending
	EntryDisputeRelease     = "dispute_release"       // a won dispute moves it back
	EntryDisputeLoss        = "dispute_loss"          // a lost dispute returns it to the payer
	EntryWithdrawal         = "withdrawal"            // a payout leaves the available balance
	EntryWithdrawalReversal = "withdrawal_reversal"   // a failed payout comes back
	EntryContestReturn      = "contest_return"        // a contested withdrawal's money returned (MED 2.0)
	EntrySplit              = "split"                 // a paid charge's parts, to its splits' accounts
	EntrySplitReturn        = "split_return"          // ...given back to the charge's account, pro rata, for a refund or a lost dispute
	EntrySplitReturnRev     = "split_return_reversal" // ...and taken again when that refund fails
)

// LedgerEntryTypes lists every kind of ledger entry.
var LedgerEntryTypes = []string{EntryPayment, EntryFee, EntryRefund, EntryFeeRefund, EntryRefundReversal, EntryFeeRefundReversal,
	EntryDisputeHold, EntryDisputeRelease, EntryDisputeLoss, EntryWithdrawal, EntryWithdrawalReversal, EntryContestReturn,
	EntrySplit, EntrySplitReturn, EntrySplitReturnRev}

// LedgerEntry is one signed movement of money in one balance.
type LedgerEntry struct {
	bun.BaseModel `bun:"table:ledger_entries"`

	ID          int64     `bun:"id,pk,autoincrement"`
	AccountID   string    `bun:"account_id"`
	Livemode    bool      `bun:"livemode"`
	Balance     string    `bun:"balance"`
	Type        string    `bun:"type"`
	AmountCents int64     `bun:"amount_cents"`
	SourceID    string    `bun:"source_id"`
	CreatedAt   time.Time `bun:"created_at"`
}

// Balance is an account's money in one mode.
type Balance struct {
	bun.BaseModel `bun:"table:balances"`

	AccountID      string    `bun:"account_id,pk"`
	Livemode       bool      `bun:"livemode,pk"`
	AvailableCents int64     `bun:"available_cents"`
	PendingCents   int64     `bun:"pending_cents"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

// Balance returns the scope's balance; an account that never moved money has zero.
func (s *Store) Balance(ctx context.Context, scope Scope) (*Balance, error) {
	if err := flushBalances(ctx); err != nil {
		return nil, err
	}
	b := &Balance{AccountID: scope.AccountID, Livemode: scope.Livemode}
	err := s.idb(ctx).NewSelect().Model(b).WherePK().Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return b, nil
	case err != nil:
		return nil, fmt.Errorf("store: balance: %w", err)
	}
	return b, nil
}

// Balances returns the balances of accounts in one mode, by account, in
// one read: an account that never moved money has none (zero).
func (s *Store) Balances(ctx context.Context, accounts []string, livemode bool) (map[string]Balance, error) {
	if err := flushBalances(ctx); err != nil {
		return nil, err
	}
	var rows []Balance
	if len(accounts) > 0 {
		err := s.idb(ctx).NewSelect().Model(&rows).Where("account_id IN (?) AND livemode = ?", bun.List(accounts), livemode).Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("store: balances: %w", err)
		}
	}
	out := make(map[string]Balance, len(rows))
	for _, b := range rows {
		out[b.AccountID] = b
	}
	return out, nil
}

// ActivityEntry is a ledger entry with what a person recognizes it by: the
// payment behind it (its own, its refund's or its dispute's) with the
// payment's external_id and description, or the withdrawal's PIX key.
type ActivityEntry struct {
	LedgerEntry        `bun:",extend"`
	PaymentID          *uuid.UUID `bun:"payment_id,type:uuid,scanonly"`
	PaymentExternalID  *string    `bun:"payment_external_id,scanonly"`
	PaymentDescription *string    `bun:"payment_description,scanonly"`
	WithdrawalPixKey   *string    `bun:"withdrawal_pix_key,scanonly"`
}

// entrySources joins a ledger entry (as ledger_entry) to what it is about:
// its refund r, dispute d or withdrawal w, and the payment p behind it
// (its own, its refund's or its dispute's). The payment is looked up by
// id per entry: a join on the expression made the planner hash every
// payment of the platform (BENCHMARKS.md, "Reports").
const entrySources = `LEFT JOIN refunds AS r ON r.id = ledger_entry.source_id
	LEFT JOIN disputes AS d ON d.id = ledger_entry.source_id
	LEFT JOIN withdrawals AS w ON w.id = ledger_entry.source_id
	LEFT JOIN LATERAL (SELECT p.id, p.external_id, p.correlation_id, p.description FROM payments AS p
		WHERE p.id = coalesce(r.payment_id, d.payment_id,
			CASE WHEN ledger_entry.source_id ~ '^[0-9a-f]{8}-' THEN ledger_entry.source_id::uuid END)) AS p ON true`

// LedgerEntries lists the scope's latest entries, newest first, each with
// its payment or withdrawal, in one query.
func (s *Store) LedgerEntries(ctx context.Context, scope Scope, limit int) ([]ActivityEntry, error) {
	var out []ActivityEntry
	err := s.idb(ctx).NewSelect().Model(&out).
		ColumnExpr("ledger_entry.*").
		ColumnExpr("p.id AS payment_id, p.external_id AS payment_external_id, p.description AS payment_description").
		ColumnExpr("w.pix_key AS withdrawal_pix_key").
		Join(entrySources).
		Where("ledger_entry.account_id = ? AND ledger_entry.livemode = ?", scope.AccountID, scope.Livemode).
		// Bounded by the account's newest entry: a walk of the primary key
		// (which the planner picks for a big account) starts there, not at
		// the platform's newest (BENCHMARKS.md, "Issue 33, fourth step").
		Where(`ledger_entry.id <= (SELECT max(id) FROM ledger_entries WHERE account_id = ? AND livemode = ?)`, scope.AccountID, scope.Livemode).
		Order("ledger_entry.id DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: ledger entries: %w", err)
	}
	return out, nil
}
