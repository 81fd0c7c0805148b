package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// A contest's statuses: pending at the PSP, then its money returned in
// whole or in part, or refused.
const (
	ContestPending           = "pending"
	ContestReturned          = "returned"
	ContestPartiallyReturned = "partially_returned"
	ContestRefused           = "refused"
)

// ContestStatuses lists every contest status.
var ContestStatuses = []string{ContestPending, ContestReturned, ContestPartiallyReturned, ContestRefused}

// ContestWindow is how long after a withdrawal completed it may be
// contested: MED's 80 days from the transfer.
const ContestWindow = 80 * 24 * time.Hour

// MaxContestDescription bounds a contest's account of what happened.
const MaxContestDescription = 2000

// ErrContested is a withdrawal contested already; ErrContestTooLate one
// past ContestWindow.
var (
	ErrContested      = errors.New("store: the withdrawal is contested already")
	ErrContestTooLate = errors.New("store: the withdrawal is past MED's 80 days")
)

// NewContest is a contest as the merchant makes it, checked by the caller.
type NewContest struct {
	Reason      string
	Description string
}

// ContestRefusal says why w takes no contest at now (nil: it takes one):
// not completed is an InvalidTransitionError, contested already
// ErrContested, past ContestWindow ErrContestTooLate. The store refuses by
// it and a page offers the contest by it.
func (w *Withdrawal) ContestRefusal(now time.Time) error {
	switch {
	case w.Status != WithdrawalCompleted:
		return &InvalidTransitionError{Object: "withdrawal", Status: w.Status}
	case w.ContestStatus != nil:
		return ErrContested
	case w.CompletedAt != nil && now.Sub(*w.CompletedAt) > ContestWindow:
		return ErrContestTooLate
	}
	return nil
}

// ContestWithdrawal contests the scope's completed withdrawal id (MED 2.0:
// the merchant was defrauded or coerced into it): pending, with
// withdrawal.contested; live, the contest is queued to the PSP in the same
// transaction. A withdrawal not completed is an InvalidTransitionError; one
// contested already ErrContested; past ContestWindow ErrContestTooLate.
func (s *Store) ContestWithdrawal(ctx context.Context, scope Scope, id string, in NewContest) (*Withdrawal, error) {
	w := new(Withdrawal)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := lockWithdrawal(ctx, tx, w, &scope, id); err != nil {
			return err
		}
		now := s.Now()
		if err := w.ContestRefusal(now); err != nil {
			return err
		}
		status := ContestPending
		w.ContestStatus, w.ContestReason, w.ContestDescription, w.ContestedAt, w.UpdatedAt = &status, &in.Reason, &in.Description, &now, now
		if _, err := tx.NewUpdate().Model(w).Column("contest_status", "contest_reason", "contest_description", "contested_at", "updated_at").
			WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: contest withdrawal: %w", err)
		}
		if w.Livemode {
			if err := s.queueCall(ctx, tx, &w.AccountID, CallMEDRequest, w.ID, time.Time{}); err != nil {
				return err
			}
		}
		return s.recordEvent(ctx, tx, EventWithdrawalContested, w.AccountID, w.Livemode, w.ID, w, now)
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// ContestResult is how a contest ended: what came back (0: refused) and,
// live, the PSP's id of the request.
type ContestResult struct {
	ReturnedCents int64
	Reference     *string
}

// ErrContestReturn is a result returning more than the withdrawal sent.
var ErrContestReturn = errors.New("store: a contest returns at most what the withdrawal sent")

// ResolveContest ends the pending contest of withdrawal id (of scope, or
// of any account when scope is nil: the PSP worker's): what came back is
// credited to the available balance (contest_return) with
// withdrawal.contest_returned, or the contest is refused
// (withdrawal.contest_refused). The same end again is a duplicate.
func (s *Store) ResolveContest(ctx context.Context, scope *Scope, id string, res ContestResult) (w *Withdrawal, duplicate bool, err error) {
	w = new(Withdrawal)
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := lockWithdrawal(ctx, tx, w, scope, id); err != nil {
			return err
		}
		status := ContestRefused
		switch {
		case res.ReturnedCents == w.AmountCents:
			status = ContestReturned
		case res.ReturnedCents > 0:
			status = ContestPartiallyReturned
		}
		switch {
		case res.ReturnedCents < 0 || res.ReturnedCents > w.AmountCents:
			return ErrContestReturn
		case w.ContestStatus == nil:
			return &InvalidTransitionError{Object: "withdrawal contest", Status: "absent"}
		case *w.ContestStatus == status && w.ContestReturnedCents != nil && *w.ContestReturnedCents == res.ReturnedCents:
			duplicate = true
			return nil
		case *w.ContestStatus != ContestPending:
			return &InvalidTransitionError{Object: "withdrawal contest", Status: *w.ContestStatus}
		}
		now := s.Now()
		w.ContestStatus, w.ContestReturnedCents, w.ContestResolvedAt, w.UpdatedAt = &status, &res.ReturnedCents, &now, now
		if res.Reference != nil {
			w.ContestReference = res.Reference
		}
		if _, err := tx.NewUpdate().Model(w).Column("contest_status", "contest_returned_cents", "contest_resolved_at", "contest_reference", "updated_at").
			WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: resolve contest: %w", err)
		}
		event := EventWithdrawalContestRefused
		if res.ReturnedCents > 0 {
			event = EventWithdrawalContestReturned
			err := s.post(ctx, tx, posting{scope: w.Scope(), sourceID: w.ID, at: now, lines: []movement{
				{BalanceAvailable, EntryContestReturn, res.ReturnedCents},
			}})
			if err != nil {
				return err
			}
		}
		return s.recordEvent(ctx, tx, event, w.AccountID, w.Livemode, w.ID, w, now)
	})
	return w, duplicate, err
}

// SetContestReference records the PSP's id of a live contest once it took
// it.
func (s *Store) SetContestReference(ctx context.Context, id, reference string) error {
	_, err := s.idb(ctx).NewUpdate().Model((*Withdrawal)(nil)).Set("contest_reference = ?", reference).
		Where("id = ? AND contest_reference IS NULL", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: contest reference: %w", err)
	}
	return nil
}
