package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// Where the return of a transfer that paid nothing stands.
const (
	TransferReturnPending  = "pending"
	TransferReturnReturned = "returned"
	TransferReturnFailed   = "failed"
)

// ErrTransferNotReturnable refuses to return a transfer that paid its
// charge (a refund returns that money), or one returned or being returned.
var ErrTransferNotReturnable = errors.New("store: this transfer paid its charge, or is returned or being returned")

// Returnable reports whether n may be returned to its payer now: it paid
// nothing, and is neither returned nor being returned (a failed return may
// be asked again). ReturnTransfer's rule, which pages ask before offering it.
func (n *PixNotification) Returnable() bool {
	return n.Outcome != PixPaid && (n.ReturnStatus == nil || *n.ReturnStatus == TransferReturnFailed)
}

// ReturnTransfer returns to the payer the whole of a received transfer that
// paid nothing (an unknown txid, the wrong amount, a second transfer for a
// paid charge): pending, with the devolução queued for the PSP, in one
// transaction. scope nil is support's (any transfer); else the transfer
// must name one of scope's charges. One that failed may be asked again.
// The money never reached a balance, so no balance moves.
func (s *Store) ReturnTransfer(ctx context.Context, scope *Scope, endToEndID string) (*PixNotification, error) {
	n := new(PixNotification)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model(n).Where("pix_notification.end_to_end_id = ?", endToEndID)
		if scope != nil {
			q = q.Where("pix_notification.payment_id IN (SELECT id FROM payments WHERE account_id = ? AND livemode = ?)",
				scope.AccountID, scope.Livemode)
		}
		if err := q.For("UPDATE OF pix_notification").Scan(ctx); err != nil {
			return fmt.Errorf("store: transfer: %w", translate(err))
		}
		if !n.Returnable() {
			return ErrTransferNotReturnable
		}
		// A new id each time: a failed devolução's id is spent at the PSP.
		returnID := strings.TrimPrefix(ids.New("rt"), "rt_")
		status := TransferReturnPending
		n.ReturnStatus, n.ReturnID, n.ReturnFailure, n.ReturnRtrID = &status, &returnID, nil, nil
		_, err := tx.NewUpdate().Model(n).Column("return_status", "return_id", "return_failure", "return_rtr_id").WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: return transfer: %w", err)
		}
		var accountID *string
		if n.PaymentID != nil {
			var acct string
			if err := tx.NewRaw("SELECT account_id FROM payments WHERE id = ?", *n.PaymentID).Scan(ctx, &acct); err != nil {
				return fmt.Errorf("store: transfer's account: %w", err)
			}
			accountID = &acct
		}
		return s.queueCall(ctx, tx, accountID, CallTransferReturn, n.EndToEndID, time.Time{})
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// FinishTransferReturn records how a transfer's return ended, as the PSP
// said: returned (with the PSP's rtrId) or failed (why).
func (s *Store) FinishTransferReturn(ctx context.Context, endToEndID string, returned bool, rtrID, failure string) error {
	status := TransferReturnFailed
	var at *time.Time
	if returned {
		now := s.Now()
		status, at = TransferReturnReturned, &now
	}
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n := new(PixNotification)
		err := tx.NewUpdate().Model(n).
			Set("return_status = ?, return_rtr_id = NULLIF(?, ''), return_failure = NULLIF(?, ''), returned_at = ?", status, rtrID, failure, at).
			Where("end_to_end_id = ? AND return_status = ?", endToEndID, TransferReturnPending).Returning("*").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // already ended
		}
		if err != nil {
			return fmt.Errorf("store: finish transfer return: %w", err)
		}
		scope := Scope{Livemode: true}
		if n.PaymentID != nil {
			if err := tx.NewRaw("SELECT account_id FROM payments WHERE id = ?", *n.PaymentID).Scan(ctx, &scope.AccountID); err != nil {
				return fmt.Errorf("store: returned transfer's account: %w", err)
			}
		}
		return s.auditOn(ctx, tx, AuditRecord{Scope: scope, Action: "transfer." + status, ObjectID: endToEndID,
			Changes: Changes{"return": {TransferReturnPending, status}}})
	})
}

// PixNotification returns one received transfer.
func (s *Store) PixNotification(ctx context.Context, endToEndID string) (*PixNotification, error) {
	n := new(PixNotification)
	if err := s.idb(ctx).NewSelect().Model(n).Where("end_to_end_id = ?", endToEndID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: transfer: %w", translate(err))
	}
	return n, nil
}
