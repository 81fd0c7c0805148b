package storetest

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"payments/store"
)

// MoneyViolations reads every payment, refund, dispute, withdrawal, ledger
// entry and the balance of scope and returns each broken invariant of the
// money model (README, "The money model"), one line each; none is nil.
//
//  1. Per payment: refunds that succeeded (lost disputes included) never add
//     up to more than was received; neither do the refunds that did not fail
//     (returned or being returned) plus what its open disputes hold (a
//     payment may have several; each holds no more than it claims).
//  2. The fee comes back at most once and pro rata: the fee shares of the
//     refunds that did not fail are each at least zero, never add up to more
//     than the fee, add up to the whole fee once the whole amount is
//     returned, and stay within a cent per refund of the fee's share of what
//     was returned.
//  3. A payment is refunded exactly when its refunds that succeeded add up to
//     its amount; refunds and disputes exist only on payments that were paid.
//  4. The balance row equals the sum of its ledger entries, and both equal
//     what the objects say: available is what paid payments brought in, less
//     refunds that did not fail (net of the fee they give back), what open
//     disputes hold and withdrawals that did not fail (less what their
//     contests brought back); pending is what open disputes hold.
//  5. Available is never below zero but for what disputes took (the holds of
//     disputes not won) and what split charges' refunds took back from a
//     recipient: refunds and withdrawals need it covered.
//  6. Split charges move money between accounts only as SplitViolations
//     checks; what they moved (the split entries) is part of available.
func MoneyViolations(ctx context.Context, db bun.IDB, scope store.Scope) ([]string, error) {
	type row struct {
		Kind      string `bun:"kind"`
		PaymentID string `bun:"payment_id"`
		Status    string `bun:"status"`
		Amount    int64  `bun:"amount"`
		Fee       int64  `bun:"fee"`
		Reason    string `bun:"reason"`
		// Refunded and FeeRefunded: the sums a payment row keeps.
		Refunded    int64 `bun:"refunded"`
		FeeRefunded int64 `bun:"fee_refunded"`
	}
	var rows []row
	err := db.NewRaw(`
		SELECT 'payment' AS kind, id::text AS payment_id, status, amount_cents AS amount, fee_cents AS fee, '' AS reason,
				amount_refunded_cents AS refunded, fee_refunded_cents AS fee_refunded
			FROM payments WHERE account_id = ?0 AND livemode = ?1
		UNION ALL SELECT 'refund', payment_id::text, status, amount_cents, fee_cents, reason, 0, 0
			FROM refunds WHERE account_id = ?0 AND livemode = ?1
		UNION ALL SELECT 'dispute', payment_id::text, status, amount_cents, amount_reported_cents, '', 0, 0
			FROM disputes WHERE account_id = ?0 AND livemode = ?1
		UNION ALL SELECT 'withdrawal', '', status, amount_cents, coalesce(contest_returned_cents, 0), '', 0, 0
			FROM withdrawals WHERE account_id = ?0 AND livemode = ?1
		UNION ALL SELECT 'ledger_' || balance, '', '', coalesce(sum(amount_cents), 0), count(*), '', 0, 0
			FROM ledger_entries WHERE account_id = ?0 AND livemode = ?1 GROUP BY balance
		UNION ALL SELECT 'balance', '', '', available_cents, pending_cents, '', 0, 0
			FROM balances WHERE account_id = ?0 AND livemode = ?1
		UNION ALL SELECT 'split', '', '', coalesce(sum(amount_cents), 0),
				coalesce(-sum(amount_cents) FILTER (WHERE amount_cents < 0 AND type <> 'split'), 0), '', 0, 0
			FROM ledger_entries WHERE account_id = ?0 AND livemode = ?1 AND type IN ('split', 'split_return', 'split_return_reversal')`,
		scope.AccountID, scope.Livemode).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("storetest: money rows: %w", err)
	}

	type paymentSums struct {
		status                    string
		amount, fee               int64
		succeeded, outstanding    int64
		feeBack, nonFailedRefunds int64
		feeBackSucceeded          int64
		keptRefunded, keptFee     int64
		held                      int64
		disputes                  int
	}
	payments := map[string]*paymentSums{}
	var refunds, disputes []row
	var ledgerAvailable, ledgerPending, balanceAvailable, balancePending, withdrawn, split, splitTaken int64
	for _, r := range rows {
		switch r.Kind {
		case "payment":
			payments[r.PaymentID] = &paymentSums{status: r.Status, amount: r.Amount, fee: r.Fee,
				keptRefunded: r.Refunded, keptFee: r.FeeRefunded}
		case "refund":
			refunds = append(refunds, r)
		case "dispute":
			disputes = append(disputes, r)
		case "withdrawal":
			if r.Status != store.WithdrawalFailed {
				withdrawn += r.Amount - r.Fee // what a contest brought back is the merchant's again
			}
		case "ledger_" + store.BalanceAvailable:
			ledgerAvailable = r.Amount
		case "ledger_" + store.BalancePending:
			ledgerPending = r.Amount
		case "balance":
			balanceAvailable, balancePending = r.Amount, r.Fee
		case "split":
			split, splitTaken = r.Amount, r.Fee
		}
	}

	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	var wantAvailable, wantPending, notWon int64
	for _, r := range refunds {
		p := payments[r.PaymentID]
		if r.Status == store.RefundFailed {
			continue
		}
		if r.Fee < 0 {
			bad("payment %s: refund of %d gives back a negative fee share %d", r.PaymentID, r.Amount, r.Fee)
		}
		p.outstanding += r.Amount
		p.feeBack += r.Fee
		p.nonFailedRefunds++
		if r.Status == store.RefundSucceeded {
			p.succeeded += r.Amount
			p.feeBackSucceeded += r.Fee
		}
		wantAvailable -= r.Amount - r.Fee
	}
	for _, d := range disputes {
		p := payments[d.PaymentID]
		p.disputes++
		if d.Amount < 0 || d.Amount > d.Fee {
			bad("payment %s: dispute holds %d of the %d it claims", d.PaymentID, d.Amount, d.Fee)
		}
		if d.Status == store.DisputeOpen {
			p.held += d.Amount
			wantAvailable -= d.Amount
			wantPending += d.Amount
		}
		if d.Status != store.DisputeWon {
			notWon += d.Amount
		}
	}
	for id, p := range payments {
		wasPaid := p.status == store.StatusPaid || p.status == store.StatusRefunded
		if wasPaid {
			wantAvailable += p.amount - p.fee
		}
		switch {
		case !wasPaid && (p.outstanding > 0 || p.disputes > 0):
			bad("payment %s is %s but has refunds (%d) or disputes (%d)", id, p.status, p.outstanding, p.disputes)
		}
		if p.succeeded > p.amount {
			bad("payment %s: refunds that succeeded add up to %d of %d received", id, p.succeeded, p.amount)
		}
		if p.outstanding+p.held > p.amount {
			bad("payment %s: refunds returned or returning %d and its open disputes hold %d, of %d received", id, p.outstanding, p.held, p.amount)
		}
		if p.keptRefunded != p.succeeded || p.keptFee != p.feeBackSucceeded {
			bad("payment %s says %d refunded (fee %d) but its refunds that succeeded add up to %d (fee %d)",
				id, p.keptRefunded, p.keptFee, p.succeeded, p.feeBackSucceeded)
		}
		if p.feeBack > p.fee {
			bad("payment %s: %d of its fee %d given back", id, p.feeBack, p.fee)
		}
		if p.amount > 0 && p.outstanding == p.amount && p.feeBack != p.fee {
			bad("payment %s: returned in full but %d of its fee %d given back", id, p.feeBack, p.fee)
		}
		if p.amount > 0 {
			// Pro rata: within a cent per refund of the fee's share.
			exact := float64(p.fee) * float64(p.outstanding) / float64(p.amount)
			if d := float64(p.feeBack) - exact; d > float64(p.nonFailedRefunds) || d < -float64(p.nonFailedRefunds)-1 {
				bad("payment %s: %d of its fee %d given back for %d of %d returned (pro rata %.2f)", id, p.feeBack, p.fee, p.outstanding, p.amount, exact)
			}
		}
		if (p.status == store.StatusRefunded) != (p.succeeded == p.amount && p.amount > 0) {
			bad("payment %s is %s with %d of %d back with the payer", id, p.status, p.succeeded, p.amount)
		}
	}
	wantAvailable += split - withdrawn
	if balanceAvailable != ledgerAvailable || balancePending != ledgerPending {
		bad("balance %d/%d (available/pending) but its ledger adds up to %d/%d", balanceAvailable, balancePending, ledgerAvailable, ledgerPending)
	}
	if balanceAvailable != wantAvailable || balancePending != wantPending {
		bad("balance %d/%d (available/pending) but payments, refunds, disputes and withdrawals make %d/%d",
			balanceAvailable, balancePending, wantAvailable, wantPending)
	}
	if balanceAvailable+notWon+splitTaken < 0 {
		bad("available %d is below zero by more than disputes (%d) and split charges' returns (%d) took", balanceAvailable, notWon, splitTaken)
	}
	return out, nil
}

// SplitViolations checks, for every paid split charge of scope, what it
// moved between accounts, from the charge and its refunds alone
// (store.Payment.SplitParts' rule, and each refund's shares: the refund
// times the part over what was paid, rounded down): each recipient's split
// entry is its part and the charge's account's their sum, at most the net;
// for each refund that did not fail (a lost dispute's included), each
// recipient gave its share back to the charge's account; for one that
// failed, every account got back what it gave.
func SplitViolations(ctx context.Context, db bun.IDB, scope store.Scope) ([]string, error) {
	var payments []store.Payment
	err := db.NewSelect().Model(&payments).Column("id", "account_id", "livemode", "amount_cents", "amount_paid_cents", "fee_cents", "paid_at", "splits").
		Where("account_id = ? AND livemode = ? AND splits IS NOT NULL AND paid_at IS NOT NULL", scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("storetest: split payments: %w", err)
	}
	type entry struct {
		Source  string `bun:"source_id"`
		Type    string `bun:"type"`
		Account string `bun:"account_id"`
		Amount  int64  `bun:"amount_cents"`
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, p := range payments {
		var refunds []store.Refund
		if err := db.NewSelect().Model(&refunds).Where("payment_id = ?", p.ID).Scan(ctx); err != nil {
			return nil, fmt.Errorf("storetest: split refunds: %w", err)
		}
		sources := []string{p.ID.String()}
		for _, r := range refunds {
			sources = append(sources, r.ID)
		}
		var entries []entry
		err := db.NewRaw(`SELECT source_id, type, account_id, sum(amount_cents) AS amount_cents FROM ledger_entries
			WHERE source_id IN (?) AND type IN ('split', 'split_return', 'split_return_reversal') GROUP BY 1, 2, 3`, bun.List(sources)).Scan(ctx, &entries)
		if err != nil {
			return nil, fmt.Errorf("storetest: split entries: %w", err)
		}
		got := map[[3]string]int64{}
		for _, e := range entries {
			got[[3]string{e.Source, e.Type, e.Account}] = e.Amount
		}
		want := map[[3]string]int64{}
		parts := p.SplitParts()
		received := p.ReceivedCents()
		var sum int64
		for i, s := range p.Splits {
			want[[3]string{p.ID.String(), store.EntrySplit, s.Account}] += parts[i]
			want[[3]string{p.ID.String(), store.EntrySplit, p.AccountID}] -= parts[i]
			sum += parts[i]
		}
		if sum > received-p.FeeCents {
			bad("payment %s: its parts add up to %d, more than its net %d", p.ID, sum, received-p.FeeCents)
		}
		for _, r := range refunds {
			for i, s := range p.Splits {
				share := r.AmountCents * parts[i] / received
				want[[3]string{r.ID, store.EntrySplitReturn, s.Account}] -= share
				want[[3]string{r.ID, store.EntrySplitReturn, p.AccountID}] += share
				if r.Status == store.RefundFailed {
					want[[3]string{r.ID, store.EntrySplitReturnRev, s.Account}] += share
					want[[3]string{r.ID, store.EntrySplitReturnRev, p.AccountID}] -= share
				}
			}
		}
		for k, v := range want {
			if v == 0 {
				delete(want, k)
			}
		}
		for k, v := range got {
			if want[k] != v {
				bad("payment %s: %s of %s moved %d for %s; the rule says %d", p.ID, k[1], k[2], v, k[0], want[k])
			}
		}
		for k, v := range want {
			if _, ok := got[k]; !ok {
				bad("payment %s: %s of %s should move %d for %s; nothing did", p.ID, k[1], k[2], v, k[0])
			}
		}
	}
	return out, nil
}

// LedgerSums adds up scope's ledger entries per balance: what the running
// balance row must always equal.
func LedgerSums(ctx context.Context, db bun.IDB, scope store.Scope) (available, pending int64, err error) {
	err = db.NewRaw(`SELECT coalesce(sum(amount_cents) FILTER (WHERE balance = ?0), 0),
		coalesce(sum(amount_cents) FILTER (WHERE balance = ?1), 0)
		FROM ledger_entries WHERE account_id = ?2 AND livemode = ?3`,
		store.BalanceAvailable, store.BalancePending, scope.AccountID, scope.Livemode).Scan(ctx, &available, &pending)
	if err != nil {
		return 0, 0, fmt.Errorf("storetest: ledger sums: %w", err)
	}
	return available, pending, nil
}
