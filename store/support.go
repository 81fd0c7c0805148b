package store

import (
	"context"
	"fmt"
	"strings"
)

// SupportResult is a payment found by support, with its account's name.
type SupportResult struct {
	Payment     `bun:",extend"`
	AccountName string `bun:"account_name,scanonly"`
}

// SearchPayments finds payments of any account, in either mode, whose id,
// external_id or customer e-mail equals q (e-mail ignoring case), newest first.
func (s *Store) SearchPayments(ctx context.Context, q string, limit int) ([]SupportResult, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, nil
	}
	var out []SupportResult
	query := s.idb(ctx).NewSelect().Model(&out).ColumnExpr("payment.*").ColumnExpr("a.name AS account_name").
		Join("JOIN accounts AS a ON a.id = payment.account_id")
	if id, ok := ParsePaymentID(q); ok {
		query = query.Where("payment.id = ? OR payment.external_id = ?", id, q)
	} else {
		query = query.Where("payment.external_id = ? OR (payment.customer IS NOT NULL AND lower(payment.customer ->> 'email') = lower(?))", q, q)
	}
	if err := query.OrderExpr("payment.id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: search payments: %w", err)
	}
	return out, nil
}
