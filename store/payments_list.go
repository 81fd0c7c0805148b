package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// PaymentListParams filters and pages a payment list. At most one of
// StartingAfter and EndingBefore is set.
type PaymentListParams struct {
	Scope         Scope
	Status        string
	CreatedGTE    *time.Time
	CreatedLTE    *time.Time
	Limit         int
	StartingAfter *uuid.UUID
	EndingBefore  *uuid.UUID
	// Search matches an exact external_id, payment id or customer e-mail (any case).
	Search string
}

// ListPayments returns one page, newest first, and whether more rows lie
// beyond it in the paging direction. Cursors are ids (UUIDv7, so id order is
// creation order): rows inserted while paging never shift a page, so paging
// neither skips nor repeats a row.
func (s *Store) ListPayments(ctx context.Context, params PaymentListParams) ([]Payment, bool, error) {
	var page []Payment
	q := s.idb(ctx).NewSelect().Model(&page).
		Where("account_id = ? AND livemode = ?", params.Scope.AccountID, params.Scope.Livemode)
	if params.Status != "" {
		q = q.Where("status = ?", params.Status)
	}
	if term := strings.TrimSpace(params.Search); term != "" {
		if id, ok := ParsePaymentID(term); ok {
			q = q.Where("(id = ? OR external_id = ?)", id, term)
		} else {
			q = q.Where("(external_id = ? OR lower(customer ->> 'email') = lower(?))", term, term)
		}
	}
	if params.CreatedGTE != nil {
		q = q.Where("created_at >= ?", *params.CreatedGTE)
	}
	if params.CreatedLTE != nil {
		q = q.Where("created_at <= ?", *params.CreatedLTE)
	}
	switch {
	case params.EndingBefore != nil:
		q = q.Where("id > ?", *params.EndingBefore).Order("id ASC")
	case params.StartingAfter != nil:
		q = q.Where("id < ?", *params.StartingAfter).Order("id DESC")
	default:
		q = q.Order("id DESC")
	}
	if err := q.Limit(int64(params.Limit) + 1).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("store: list payments: %w", err)
	}
	hasMore := len(page) > params.Limit
	if hasMore {
		page = page[:params.Limit]
	}
	if params.EndingBefore != nil {
		slices.Reverse(page)
	}
	return page, hasMore, nil
}

// PaymentExists reports whether id is a payment in scope; list cursors must be.
func (s *Store) PaymentExists(ctx context.Context, scope Scope, id uuid.UUID) (bool, error) {
	ok, err := s.idb(ctx).NewSelect().Model((*Payment)(nil)).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("store: payment exists: %w", err)
	}
	return ok, nil
}
