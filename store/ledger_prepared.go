package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/store/internal/pg"
)

// The ledger's hot statement (see doc.go): a posting, made in the
// transaction of every change that moves money.

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
// last: inside an ambient transaction (an operation with its audit row, an
// idempotent request) just before the commit (see balanceTail), else as the
// posting's last statement, and its caller writes the posting last. Covered
// debits queue on that lock too, and each sees the previous one's result.
func (s *Store) post(ctx context.Context, tx bun.Tx, p posting) error {
	stmts := p.statements()
	if len(stmts) == 0 {
		return nil
	}
	if err := execIn(ctx, tx, "ledger entries", stmts[0]); err != nil {
		return err
	}
	if !p.covered {
		if a, ok := ambientOf(ctx); ok {
			a.tail.stmts = append(a.tail.stmts, stmts[1])
			return nil
		}
		return execIn(ctx, tx, "update balance", stmts[1])
	}
	// A covered debit reads the balance: what the transaction credited
	// before it counts.
	if err := flushBalances(ctx); err != nil {
		return err
	}
	res, err := tx.Tx.ExecContext(ctx, stmts[1].SQL, pg.Prepared(stmts[1].Args...)...)
	if err != nil {
		return fmt.Errorf("store: update balance: %w", err)
	}
	// A covered debit needs money already there, so a balance row too:
	// none (no row updated) is as insufficient as too little.
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrBalanceInsufficient
	}
	return nil
}

// statements are the posting's two statements, its entries and then its
// balance, or none when it moves nothing. A covered posting's balance
// statement updates no row when the balance does not cover it, which its
// runner must check (post does).
func (p posting) statements() []pg.Statement {
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
	entries := pg.Statement{SQL: `INSERT INTO ledger_entries (account_id, livemode, balance, type, amount_cents, source_id, created_at)
		SELECT $1, $2, l.balance, l.type, l.amount_cents, $3, $4
		FROM unnest($5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS l(balance, type, amount_cents, i)
		ORDER BY l.i`, Args: []any{p.scope.AccountID, p.scope.Livemode, p.sourceID, p.at, balances, kinds, amounts}}
	balance := pg.Statement{SQL: `INSERT INTO balances AS b (account_id, livemode, available_cents, pending_cents, updated_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (account_id, livemode) DO UPDATE SET available_cents = b.available_cents + EXCLUDED.available_cents,
			pending_cents = b.pending_cents + EXCLUDED.pending_cents, updated_at = EXCLUDED.updated_at`}
	if p.covered {
		balance.SQL = `UPDATE balances
			SET available_cents = available_cents + $3, pending_cents = pending_cents + $4, updated_at = $5
			WHERE account_id = $1 AND livemode = $2 AND available_cents + $3 >= 0`
	}
	balance.Args = []any{p.scope.AccountID, p.scope.Livemode, dAvailable, dPending, p.at}
	return []pg.Statement{entries, balance}
}
