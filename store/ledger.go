package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The two balances every account has per mode.
const (
	BalanceAvailable = "available"
	BalancePending   = "pending"
)

// Ledger entry types: why money moved.
const (
	EntryPayment            = "payment"             // a paid charge, credited in full
	EntryFee                = "fee"                 // our fee for that charge
	EntryRefund             = "refund"              // a refund returns the amount to the payer
	EntryFeeRefund          = "fee_refund"          // ...and the fee to the merchant
	EntryDisputeHold        = "dispute_hold"        // an open dispute moves the amount to pending
	EntryDisputeRelease     = "dispute_release"     // a won dispute moves it back
	EntryDisputeLoss        = "dispute_loss"        // a lost dispute returns it to the payer
	EntryWithdrawal         = "withdrawal"          // a payout leaves the available balance
	EntryWithdrawalReversal = "withdrawal_reversal" // a failed payout comes back
)

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

// movement is one line of a posting: amount cents (signed) into balance.
type movement struct {
	balance string
	kind    string
	amount  int64
}

// posting is a set of ledger lines caused by one object's change.
type posting struct {
	scope    Scope
	sourceID string
	at       time.Time
	lines    []movement
	// covered refuses the posting with ErrBalanceInsufficient when it would
	// leave the available balance below zero (withdrawals, refunds). Other
	// postings (a dispute hold) may drive it negative: that money is owed.
	covered bool
}

// post writes a posting's entries and adds them to the running balance inside
// tx. The balance row is every payment's of the account, so it is written
// last, in one statement, and stays locked only until the commit that
// follows: concurrent confirmations queue on it for one round trip each, not
// three. Covered debits queue on that lock too, and each sees the previous
// one's result.
func (s *Store) post(ctx context.Context, tx bun.Tx, p posting) error {
	// The entries travel as three parallel arrays, in the posting's order:
	// one prepared statement whatever their number.
	var dAvailable, dPending int64
	var balances, kinds []string
	var amounts []int64
	for _, l := range p.lines {
		if l.amount == 0 {
			continue
		}
		balances, kinds, amounts = append(balances, l.balance), append(kinds, l.kind), append(amounts, l.amount)
		if l.balance == BalanceAvailable {
			dAvailable += l.amount
		} else {
			dPending += l.amount
		}
	}
	if len(amounts) == 0 {
		return nil
	}
	_, err := tx.Tx.ExecContext(ctx, `INSERT INTO ledger_entries (account_id, livemode, balance, type, amount_cents, source_id, created_at)
		SELECT $1, $2, l.balance, l.type, l.amount_cents, $3, $4
		FROM unnest($5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS l(balance, type, amount_cents, i)
		ORDER BY l.i`,
		prepared(p.scope.AccountID, p.scope.Livemode, p.sourceID, p.at, balances, kinds, amounts)...)
	if err != nil {
		return fmt.Errorf("store: ledger entries: %w", translate(err))
	}
	if p.covered {
		// A covered debit needs money already there, so a balance row too:
		// none (no row updated) is as insufficient as too little.
		res, err := tx.Tx.ExecContext(ctx, `UPDATE balances
			SET available_cents = available_cents + $3, pending_cents = pending_cents + $4, updated_at = $5
			WHERE account_id = $1 AND livemode = $2 AND available_cents + $3 >= 0`,
			prepared(p.scope.AccountID, p.scope.Livemode, dAvailable, dPending, p.at)...)
		if err != nil {
			return fmt.Errorf("store: update balance: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrBalanceInsufficient
		}
		return nil
	}
	_, err = tx.Tx.ExecContext(ctx, `INSERT INTO balances AS b (account_id, livemode, available_cents, pending_cents, updated_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (account_id, livemode) DO UPDATE SET available_cents = b.available_cents + EXCLUDED.available_cents,
			pending_cents = b.pending_cents + EXCLUDED.pending_cents, updated_at = EXCLUDED.updated_at`,
		prepared(p.scope.AccountID, p.scope.Livemode, dAvailable, dPending, p.at)...)
	if err != nil {
		return fmt.Errorf("store: update balance: %w", err)
	}
	return nil
}

// Balance returns the scope's balance; an account that never moved money has zero.
func (s *Store) Balance(ctx context.Context, scope Scope) (*Balance, error) {
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

// LedgerEntries lists the scope's latest entries, newest first.
func (s *Store) LedgerEntries(ctx context.Context, scope Scope, limit int) ([]LedgerEntry, error) {
	var out []LedgerEntry
	err := s.idb(ctx).NewSelect().Model(&out).
		Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode).
		Order("id DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: ledger entries: %w", err)
	}
	return out, nil
}

// LedgerSums adds up the scope's ledger entries per balance, the check the
// running balance must always pass.
func (s *Store) LedgerSums(ctx context.Context, scope Scope) (available, pending int64, err error) {
	err = s.idb(ctx).NewSelect().Model((*LedgerEntry)(nil)).
		ColumnExpr("coalesce(sum(amount_cents) FILTER (WHERE balance = ?), 0)", BalanceAvailable).
		ColumnExpr("coalesce(sum(amount_cents) FILTER (WHERE balance = ?), 0)", BalancePending).
		Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode).
		Scan(ctx, &available, &pending)
	if err != nil {
		return 0, 0, fmt.Errorf("store: ledger sums: %w", err)
	}
	return available, pending, nil
}
