package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Payer is one of an account's payers, by CPF or CNPJ (digits): how
// many charges named them, how many they paid and for how much, and when
// they were first and last charged (customers, migration 034).
type Payer struct {
	bun.BaseModel `bun:"table:customers"`

	AccountID     string    `bun:"account_id,pk"`
	Livemode      bool      `bun:"livemode,pk"`
	Document      string    `bun:"document,pk"`
	Name          string    `bun:"name"`
	Email         string    `bun:"email"`
	Payments      int64     `bun:"payments"`
	Paid          int64     `bun:"paid"`
	PaidCents     int64     `bun:"paid_cents"`
	FirstChargeAt time.Time `bun:"first_charge_at"`
	LastChargeAt  time.Time `bun:"last_charge_at"`
}

// PayerListParams narrows the payers listed: a document's first digits,
// a last charge within [ChargedFrom, ChargedBefore), and the page after
// the payer whose document is StartingAfter.
type PayerListParams struct {
	Scope                      Scope
	DocumentPrefix             string
	ChargedFrom, ChargedBefore time.Time
	Limit                      int
	StartingAfter              string
}

// listPayers lists scope's payers, most recently charged first.
func (s *Store) listPayers(ctx context.Context, p PayerListParams) ([]Payer, bool, error) {
	var out []Payer
	q := s.idb(ctx).NewSelect().Model(&out).Where("account_id = ? AND livemode = ?", p.Scope.AccountID, p.Scope.Livemode)
	if p.DocumentPrefix != "" {
		// Digits sort before '~' in the "C" collation: a range of the key.
		q = q.Where("document >= ? AND document < ?", p.DocumentPrefix, p.DocumentPrefix+"~")
	}
	if !p.ChargedFrom.IsZero() {
		q = q.Where("last_charge_at >= ?", p.ChargedFrom)
	}
	if !p.ChargedBefore.IsZero() {
		q = q.Where("last_charge_at < ?", p.ChargedBefore)
	}
	if p.StartingAfter != "" {
		q = q.Where(`(last_charge_at, document) < (SELECT last_charge_at, document FROM customers
			WHERE account_id = ? AND livemode = ? AND document = ?)`, p.Scope.AccountID, p.Scope.Livemode, p.StartingAfter)
	}
	if err := q.OrderExpr("last_charge_at DESC, document DESC").Limit(int64(p.Limit) + 1).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("store: list customers: %w", err)
	}
	more := len(out) > p.Limit
	if more {
		out = out[:p.Limit]
	}
	return out, more, nil
}
