package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// What lists of every table share: paging by time-ordered ids, and the rows
// of a table that belong to one payment.

// IDListParams pages a list of objects with time-ordered text ids, newest first.
type IDListParams struct {
	Scope         Scope
	Status        string
	Limit         int
	StartingAfter string
	// CreatedFrom and CreatedBefore bound created_at when set (the
	// dashboard's lists filter by days).
	CreatedFrom, CreatedBefore time.Time
	// PaymentID keeps the rows of one payment, when set (a table with a
	// payment_id: refunds).
	PaymentID *uuid.UUID
}

// ofPayment lists the scope's rows of a table that belong to a payment.
func ofPayment[T any](ctx context.Context, db bun.IDB, scope Scope, paymentID uuid.UUID, order string) ([]T, error) {
	var out []T
	err := db.NewSelect().Model(&out).
		Where("payment_id = ? AND account_id = ? AND livemode = ?", paymentID, scope.AccountID, scope.Livemode).
		Order(order).Scan(ctx)
	return out, err
}

// listByID runs q (a select of a table with account_id, livemode, status and
// a time-ordered id) for one page, trimming the look-ahead row.
func listByID[T any](ctx context.Context, q *bun.SelectQuery, out *[]T, p IDListParams) (bool, error) {
	q = q.Where("account_id = ? AND livemode = ?", p.Scope.AccountID, p.Scope.Livemode)
	if p.Status != "" {
		q = q.Where("status = ?", p.Status)
	}
	if p.StartingAfter != "" {
		q = q.Where("id < ?", p.StartingAfter)
	}
	if p.PaymentID != nil {
		q = q.Where("payment_id = ?", *p.PaymentID)
	}
	if !p.CreatedFrom.IsZero() {
		q = q.Where("created_at >= ?", p.CreatedFrom)
	}
	if !p.CreatedBefore.IsZero() {
		q = q.Where("created_at < ?", p.CreatedBefore)
	}
	if err := q.Order("id DESC").Limit(int64(p.Limit) + 1).Scan(ctx); err != nil {
		return false, err
	}
	hasMore := len(*out) > p.Limit
	if hasMore {
		*out = (*out)[:p.Limit]
	}
	return hasMore, nil
}
