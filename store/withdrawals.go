package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// Withdrawal statuses: pending -> completed | failed.
const (
	WithdrawalPending   = "pending"
	WithdrawalCompleted = "completed"
	WithdrawalFailed    = "failed"
)

// WithdrawalStatuses lists every withdrawal status.
var WithdrawalStatuses = []string{WithdrawalPending, WithdrawalCompleted, WithdrawalFailed}

// A withdrawal's rules.
const (
	// MaxWithdrawalCents caps one payout at R$ 100.000.000,00.
	MaxWithdrawalCents = 10_000_000_000
	// MaxPixKeyInput bounds a PIX key as typed, punctuation included.
	MaxPixKeyInput = 100
	// MaxWithdrawalDescription is what a PIX transfer carries as information to the receiver.
	MaxWithdrawalDescription = 140
	// MaxFailureReason bounds why a payout failed, as the PSP words it.
	MaxFailureReason = 500
)

// Withdrawal is a payout of available balance to a PIX key. Its amount leaves
// the available balance when it is created and comes back if it fails.
type Withdrawal struct {
	bun.BaseModel `bun:"table:withdrawals"`

	ID            string            `bun:"id,pk"`
	AccountID     string            `bun:"account_id"`
	Livemode      bool              `bun:"livemode"`
	AmountCents   int64             `bun:"amount_cents"`
	PixKey        string            `bun:"pix_key"`
	PixKeyType    string            `bun:"pix_key_type"`
	Description   *string           `bun:"description"`
	Metadata      map[string]string `bun:"metadata,type:jsonb,notnull"`
	Status        string            `bun:"status"`
	EndToEndID    *string           `bun:"end_to_end_id"`
	FailureReason *string           `bun:"failure_reason"`
	CreatedAt     time.Time         `bun:"created_at"`
	UpdatedAt     time.Time         `bun:"updated_at"`
	CompletedAt   *time.Time        `bun:"completed_at"`
	FailedAt      *time.Time        `bun:"failed_at"`
	// A contest (MED 2.0 for money sent), once made.
	ContestStatus        *string    `bun:"contest_status"`
	ContestReason        *string    `bun:"contest_reason"`
	ContestDescription   *string    `bun:"contest_description"`
	ContestedAt          *time.Time `bun:"contested_at"`
	ContestReturnedCents *int64     `bun:"contest_returned_cents"`
	ContestResolvedAt    *time.Time `bun:"contest_resolved_at"`
	ContestReference     *string    `bun:"contest_reference"`
}

// Scope is the account and mode the withdrawal belongs to.
func (w *Withdrawal) Scope() Scope { return Scope{AccountID: w.AccountID, Livemode: w.Livemode} }

// PayoutID is the withdrawal's id at the PSP's payout port (idEnvio), which
// allows letters and digits only: the id without its prefix.
func (w *Withdrawal) PayoutID() string { return strings.TrimPrefix(w.ID, ids.PrefixWithdrawal+"_") }

// lockWithdrawal reads withdrawal id into w, locked for tx: scope's, or
// any account's when scope is nil (the PSP worker's).
func lockWithdrawal(ctx context.Context, tx bun.Tx, w *Withdrawal, scope *Scope, id string) error {
	q := tx.NewSelect().Model(w).Where("id = ?", id)
	if scope != nil {
		q = q.Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode)
	}
	if err := q.For("UPDATE").Scan(ctx); err != nil {
		return fmt.Errorf("store: withdrawal: %w", translate(err))
	}
	return nil
}

// WithdrawalIDOfPayout is the withdrawal whose payout's id is payoutID.
func WithdrawalIDOfPayout(payoutID string) string { return ids.PrefixWithdrawal + "_" + payoutID }

// CheckWithdrawal says whether CreateWithdrawal would make w now (nil: it
// would), by making a copy of it in a transaction that is rolled back.
func (s *Store) CheckWithdrawal(ctx context.Context, w Withdrawal) error {
	return s.dryRun(ctx, func(ctx context.Context, _ bun.Tx) error { return s.CreateWithdrawal(ctx, &w) })
}

// CreateWithdrawal inserts a pending withdrawal and debits its amount from the
// available balance in one transaction (in live mode with the payout queued
// for the PSP); more than is available is ErrBalanceInsufficient and
// nothing is written. Concurrent withdrawals queue on the balance row, so
// together they can never overdraw it.
func (s *Store) CreateWithdrawal(ctx context.Context, w *Withdrawal) error {
	now := s.Now()
	w.ID, w.Status, w.CreatedAt, w.UpdatedAt = ids.New(ids.PrefixWithdrawal), WithdrawalPending, now, now
	if w.Metadata == nil {
		w.Metadata = map[string]string{}
	}
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(w).Exec(ctx); err != nil {
			return fmt.Errorf("store: create withdrawal: %w", translate(err))
		}
		err := s.post(ctx, tx, posting{scope: w.Scope(), sourceID: w.ID, at: now, covered: true, lines: []movement{
			{BalanceAvailable, EntryWithdrawal, -w.AmountCents},
		}})
		if err != nil || !w.Livemode {
			return err
		}
		return s.queueCall(ctx, tx, &w.AccountID, CallPayoutCreate, w.ID, time.Time{})
	})
}

// WithdrawalByID returns the withdrawal id of any account, for the PSP worker.
func (s *Store) WithdrawalByID(ctx context.Context, id string) (*Withdrawal, error) {
	w := new(Withdrawal)
	if err := s.idb(ctx).NewSelect().Model(w).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: withdrawal: %w", translate(err))
	}
	return w, nil
}

// WithdrawalResult is how a pending withdrawal ended.
type WithdrawalResult struct {
	Status        string  // WithdrawalCompleted or WithdrawalFailed
	EndToEndID    *string // the PIX transfer's id, when the PSP gives one
	FailureReason *string
}

// FinishWithdrawal records the end of the withdrawal id in scope (nil scope:
// any account, for the PSP, which knows withdrawals by id). The same end
// reported again returns it unchanged with duplicate set; the other end is an
// InvalidTransitionError. A failure gives the amount back.
func (s *Store) FinishWithdrawal(ctx context.Context, scope *Scope, id string, res WithdrawalResult) (w *Withdrawal, duplicate bool, err error) {
	w = new(Withdrawal)
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := lockWithdrawal(ctx, tx, w, scope, id); err != nil {
			return err
		}
		switch {
		case w.Status == res.Status:
			duplicate = true
			return nil
		case w.Status != WithdrawalPending:
			return &InvalidTransitionError{Object: "withdrawal", Status: w.Status}
		}
		now := s.Now()
		w.Status, w.UpdatedAt = res.Status, now
		if res.EndToEndID != nil {
			w.EndToEndID = res.EndToEndID
		}
		event := EventWithdrawalCompleted
		if res.Status == WithdrawalCompleted {
			w.CompletedAt = &now
		} else {
			w.FailedAt, w.FailureReason, event = &now, res.FailureReason, EventWithdrawalFailed
		}
		_, err := tx.NewUpdate().Model(w).
			Column("status", "updated_at", "end_to_end_id", "failure_reason", "completed_at", "failed_at").WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: finish withdrawal: %w", err)
		}
		if res.Status == WithdrawalFailed {
			err := s.post(ctx, tx, posting{scope: w.Scope(), sourceID: w.ID, at: now, lines: []movement{
				{BalanceAvailable, EntryWithdrawalReversal, w.AmountCents},
			}})
			if err != nil {
				return err
			}
		}
		if err := s.recordEvent(ctx, tx, event, w.AccountID, w.Livemode, w.ID, w, now); err != nil {
			return err
		}
		if scope != nil {
			return nil // an operation's (a simulation): it audits itself
		}
		// The PSP's answer, written by its worker: its own audit row.
		return s.auditOn(ctx, tx, AuditRecord{Scope: w.Scope(), Action: "withdrawal." + res.Status, ObjectID: w.ID,
			Changes: Changes{"status": {WithdrawalPending, res.Status}}})
	})
	if err != nil {
		return nil, false, err
	}
	return w, duplicate, nil
}

// Withdrawal returns one of the scope's withdrawals.
func (s *Store) Withdrawal(ctx context.Context, scope Scope, id string) (*Withdrawal, error) {
	w := new(Withdrawal)
	err := s.idb(ctx).NewSelect().Model(w).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: withdrawal: %w", translate(err))
	}
	return w, nil
}

// ListWithdrawals returns one page of the scope's withdrawals, newest first.
func (s *Store) ListWithdrawals(ctx context.Context, p IDListParams) ([]Withdrawal, bool, error) {
	var out []Withdrawal
	hasMore, err := listByID(ctx, s.idb(ctx).NewSelect().Model(&out), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list withdrawals: %w", err)
	}
	return out, hasMore, nil
}
