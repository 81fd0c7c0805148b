package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/store/ids"
	"payments/store/internal/pg"
)

// Why a payment was refunded.
const (
	RefundRequested   = "requested"    // the merchant asked
	RefundDisputeLost = "dispute_lost" // a lost dispute returned the money
)

// Refund statuses: pending -> succeeded | failed. A live refund is pending
// while its devolução is at the PSP; a test refund until a test helper ends it.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// RefundStatuses lists every refund status.
var RefundStatuses = []string{RefundPending, RefundSucceeded, RefundFailed}

// MaxRefundDescription is what a devolução carries to the payer (API Pix: 140).
const MaxRefundDescription = 140

// ErrRefundTooLarge means a refund asked for more than the payment has
// left to refund; ErrNothingToRefund, that its refunds (some perhaps still
// pending) already add up to its amount.
var (
	ErrRefundTooLarge  = errors.New("store: the refund is larger than what the payment has left to refund")
	ErrNothingToRefund = errors.New("store: the payment's refunds already add up to its amount")
)

// Refundable is the refund rule, for the write (CreateRefund, RefundPayment)
// and for a page that offers a refund alike: what is left to refund of p,
// whose refunds not failed add up to outstandingCents (OutstandingRefunds),
// or why nothing may be: a payment not paid (InvalidTransitionError), an
// open dispute (ErrPaymentDisputed), nothing left (ErrNothingToRefund).
func Refundable(p *Payment, outstandingCents int64, disputeOpen bool) (int64, error) {
	switch left := p.ReceivedCents() - outstandingCents; {
	case p.Status != StatusPaid:
		return 0, &InvalidTransitionError{Status: p.Status}
	case disputeOpen:
		return 0, ErrPaymentDisputed
	case left <= 0:
		return 0, ErrNothingToRefund
	default:
		return left, nil
	}
}

// OutstandingRefunds adds up the refunds that hold money back from being
// refunded again: every one not failed.
func OutstandingRefunds(refunds []Refund) int64 {
	var sum int64
	for _, r := range refunds {
		if r.Status != RefundFailed {
			sum += r.AmountCents
		}
	}
	return sum
}

// Refund returns (part of) a paid payment's amount to the payer. Its
// amount leaves the available balance when it is created, with the part of
// the fee it gives back; a failed refund brings both back.
type Refund struct {
	bun.BaseModel `bun:"table:refunds"`

	ID          string    `bun:"id,pk"`
	AccountID   string    `bun:"account_id"`
	Livemode    bool      `bun:"livemode"`
	PaymentID   uuid.UUID `bun:"payment_id,type:uuid"`
	AmountCents int64     `bun:"amount_cents"`
	// FeeCents is the part of the payment's fee this refund gives back.
	FeeCents    int64   `bun:"fee_cents"`
	Reason      string  `bun:"reason"`
	Status      string  `bun:"status"`
	Description *string `bun:"description"`
	DisputeID   *string `bun:"dispute_id"`
	// EndToEndID is the Pix the devolução returns; ReturnID the devolução's
	// own id at the PSP (rtrId), once it has one.
	EndToEndID    *string    `bun:"end_to_end_id"`
	ReturnID      *string    `bun:"return_id"`
	FailureReason *string    `bun:"failure_reason"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	CompletedAt   *time.Time `bun:"completed_at"`
}

// Scope is the account and mode the refund belongs to.
func (r *Refund) Scope() Scope { return Scope{AccountID: r.AccountID, Livemode: r.Livemode} }

// DevolucaoID is the refund's id at the PSP: API Pix allows letters and
// digits only, so the id without its prefix (unique as it is).
func (r *Refund) DevolucaoID() string { return strings.TrimPrefix(r.ID, ids.PrefixRefund+"_") }

// NewRefund asks for a refund. AmountCents 0 is all the payment has left.
type NewRefund struct {
	AmountCents int64
	Description *string
}

// CreateRefund refunds (part of) the paid payment ref: a pending refund
// whose amount leaves the available balance now, with the part of the fee
// it gives back; in live mode with the devolução that returns it queued for
// the PSP. A payment in another status is an InvalidTransitionError, one
// with an open dispute ErrPaymentDisputed, an amount over what is left
// ErrRefundTooLarge, and a balance that cannot cover it ErrBalanceInsufficient.
func (s *Store) CreateRefund(ctx context.Context, scope Scope, ref string, in NewRefund) (*Refund, error) {
	var r *Refund
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPayment(ctx, tx, scope, ref)
		if err != nil {
			return err
		}
		r, err = s.createRefund(ctx, tx, p, in)
		return err
	})
	return r, err
}

// CheckRefund says whether CreateRefund would make this refund now, by
// making it in a transaction that is rolled back: the same rules, every one
// of them, for a page that asks before it moves money. nil: it would.
func (s *Store) CheckRefund(ctx context.Context, scope Scope, ref string, in NewRefund) error {
	return s.dryRun(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPayment(ctx, tx, scope, ref)
		if err != nil {
			return err
		}
		_, err = s.createRefund(ctx, tx, p, in)
		return err
	})
}

func (s *Store) createRefund(ctx context.Context, tx bun.Tx, p *Payment, in NewRefund) (*Refund, error) {
	if p.Status != StatusPaid { // before the reads below: nothing else matters then
		return nil, &InvalidTransitionError{Status: p.Status}
	}
	disputed, err := tx.NewSelect().Model((*Dispute)(nil)).Where("payment_id = ? AND status = ?", p.ID, DisputeOpen).Exists(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: open dispute: %w", err)
	}
	sums, err := refundSums(ctx, tx, p.ID)
	if err != nil {
		return nil, err
	}
	left, err := Refundable(p, sums.outstanding, disputed)
	if err != nil {
		return nil, err
	}
	amount := in.AmountCents
	switch {
	case amount == 0:
		amount = left
	case amount > left:
		return nil, ErrRefundTooLarge
	}
	now := s.Now()
	r := &Refund{
		ID: ids.New(ids.PrefixRefund), AccountID: p.AccountID, Livemode: p.Livemode, PaymentID: p.ID,
		AmountCents: amount, FeeCents: sums.feeShare(p, amount), Reason: RefundRequested,
		Status: RefundPending, Description: in.Description, CreatedAt: now, UpdatedAt: now,
	}
	if p.Livemode {
		// The devolução returns the Pix that paid the charge.
		var e2e string
		err := tx.NewSelect().Model((*PixNotification)(nil)).Column("end_to_end_id").
			Where("payment_id = ? AND outcome = ?", p.ID, PixPaid).Limit(1).Scan(ctx, &e2e)
		if err != nil {
			return nil, fmt.Errorf("store: the transfer that paid %s: %w", p.ID, translate(err))
		}
		r.EndToEndID = &e2e
	}
	if _, err := tx.NewInsert().Model(r).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: insert refund: %w", translate(err))
	}
	// A split charge's accounts give back their shares first: the charge's
	// account's balance covers only its own (theirs may go below zero, as
	// a dispute's hold may).
	postings := append(splitPostings(p, r.ID, EntrySplitReturn, now, negate(p.splitShares(r.AmountCents))),
		posting{scope: r.Scope(), sourceID: r.ID, at: now, covered: true, lines: []movement{
			{BalanceAvailable, EntryRefund, -r.AmountCents},
			{BalanceAvailable, EntryFeeRefund, r.FeeCents},
		}})
	if err := s.postAll(ctx, tx, postings); err != nil {
		return nil, err
	}
	if p.Livemode {
		if err := s.queueCall(ctx, tx, &r.AccountID, CallDevolucaoCreate, r.ID, time.Time{}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// refundTotals adds up a payment's refunds that did not fail: outstanding
// is their amount (returned or being returned), fee the part of the fee
// they gave back.
type refundTotals struct {
	outstanding, fee int64
}

func refundSums(ctx context.Context, tx bun.Tx, paymentID uuid.UUID) (refundTotals, error) {
	var t refundTotals
	err := tx.NewSelect().Model((*Refund)(nil)).
		ColumnExpr("coalesce(sum(amount_cents), 0), coalesce(sum(fee_cents), 0)").
		Where("payment_id = ? AND status <> ?", paymentID, RefundFailed).Scan(ctx, &t.outstanding, &t.fee)
	if err != nil {
		return t, fmt.Errorf("store: refunds so far: %w", err)
	}
	return t, nil
}

// feeShare is the part of p's fee that returning amount more gives back:
// what brings the fee returned so far to the fee's share of everything
// returned, rounded down. So the fee comes back pro rata, never more than
// once: refunds adding up to the whole amount give back exactly the fee,
// whatever failed in between.
func (t refundTotals) feeShare(p *Payment, amount int64) int64 {
	received := p.ReceivedCents()
	if received <= 0 {
		return 0
	}
	due := p.FeeCents * (t.outstanding + amount) / received
	return min(max(due-t.fee, 0), p.FeeCents-t.fee)
}

// RefundResult is how a pending refund ended.
type RefundResult struct {
	Status        string  // RefundSucceeded or RefundFailed
	ReturnID      *string // the devolução's id at the PSP (rtrId)
	FailureReason *string
}

// SettleRefund ends the pending refund id (scope nil: any account, for the
// PSP worker). Succeeded: refund.succeeded, and the payment becomes refunded
// (payment.refunded) once its refunds add up to its amount. Failed:
// refund.failed, and the amount and fee share come back. The same end again
// returns it unchanged with duplicate set; the other end is an
// InvalidTransitionError.
func (s *Store) SettleRefund(ctx context.Context, scope *Scope, id string, res RefundResult) (r *Refund, duplicate bool, err error) {
	r = new(Refund)
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model(r).Where("id = ?", id)
		if scope != nil {
			q = q.Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode)
		}
		if err := q.For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("store: refund: %w", translate(err))
		}
		switch {
		case r.Status == res.Status:
			duplicate = true
			return nil
		case r.Status != RefundPending:
			return &InvalidTransitionError{Object: "refund", Status: r.Status}
		}
		if err := s.settleRefund(ctx, tx, r, res); err != nil {
			return err
		}
		if scope != nil {
			return nil // an operation's (a simulation): it audits itself
		}
		// The PSP's answer, written by its worker: its own audit row.
		return s.auditOn(ctx, tx, AuditRecord{Scope: r.Scope(), Action: "refund." + res.Status, ObjectID: r.ID,
			Changes: Changes{"status": {RefundPending, res.Status}}})
	})
	if err != nil {
		return nil, false, err
	}
	return r, duplicate, nil
}

func (s *Store) settleRefund(ctx context.Context, tx bun.Tx, r *Refund, res RefundResult) error {
	now := s.Now()
	r.Status, r.UpdatedAt, r.CompletedAt = res.Status, now, &now
	if res.ReturnID != nil {
		r.ReturnID = res.ReturnID
	}
	event := EventRefundSucceeded
	if res.Status == RefundFailed {
		r.FailureReason, event = res.FailureReason, EventRefundFailed
	}
	_, err := tx.NewUpdate().Model(r).Column("status", "updated_at", "completed_at", "return_id", "failure_reason").
		WherePK().Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: settle refund: %w", err)
	}
	// The payment is locked before anything else it owns (its dispute):
	// every path that touches both takes them in that order.
	p, err := lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(r.PaymentID))
	if err != nil {
		return err
	}
	if res.Status == RefundFailed {
		reversal, err := s.refundReversal(ctx, tx, r, now)
		if err != nil {
			return err
		}
		// What the split's accounts gave back for it is theirs again.
		if err := s.postAll(ctx, tx, append([]posting{reversal}, splitPostings(p, r.ID, EntrySplitReturnRev, now, p.splitShares(r.AmountCents))...)); err != nil {
			return err
		}
		return s.recordEvent(ctx, tx, event, r.AccountID, r.Livemode, r.ID, r, now)
	}
	if err := s.recordEvent(ctx, tx, event, r.AccountID, r.Livemode, r.ID, r, now); err != nil {
		return err
	}
	if err := addRefunded(ctx, tx, p, r); err != nil {
		return err
	}
	return s.refundedInFull(ctx, tx, p)
}

// addRefunded counts the succeeded refund r on its locked payment p: the
// amount back with the payer and the fee share it returned.
func addRefunded(ctx context.Context, tx bun.Tx, p *Payment, r *Refund) error {
	p.AmountRefundedCents += r.AmountCents
	p.FeeRefundedCents += r.FeeCents
	return execIn(ctx, tx, "count the refund on its payment", pg.Statement{
		SQL:  `UPDATE payments SET amount_refunded_cents = $2, fee_refunded_cents = $3 WHERE id = $1`,
		Args: []any{pg.UUID(p.ID), p.AmountRefundedCents, p.FeeRefundedCents}})
}

// refundReversal is the posting that brings a failed refund's amount back,
// and takes back the part of the fee it returned. While a dispute is open on the payment the
// amount is the merchant's again and so under the payer's claim: it joins
// the dispute's hold (up to what the dispute claims), in pending, instead
// of the available balance.
func (s *Store) refundReversal(ctx context.Context, tx bun.Tx, r *Refund, now time.Time) (posting, error) {
	// The oldest open dispute that holds less than it claims takes what it
	// can of the amount back (a payment may have several).
	var grown int64
	err := tx.NewRaw(`WITH d AS (
			SELECT id, least(?, amount_reported_cents - amount_cents) AS grow FROM disputes
			WHERE payment_id = ? AND status = ? AND amount_cents < amount_reported_cents ORDER BY id LIMIT 1 FOR UPDATE
		)
		UPDATE disputes SET amount_cents = amount_cents + d.grow, updated_at = ? FROM d WHERE disputes.id = d.id
		RETURNING d.grow`, r.AmountCents, r.PaymentID, DisputeOpen, now).Scan(ctx, &grown)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		grown = 0
	case err != nil:
		return posting{}, fmt.Errorf("store: grow the dispute's hold: %w", err)
	}
	lines := []movement{
		{BalanceAvailable, EntryRefundReversal, r.AmountCents},
		{BalanceAvailable, EntryFeeRefundReversal, -r.FeeCents},
	}
	if grown > 0 {
		lines = append(lines, movement{BalanceAvailable, EntryDisputeHold, -grown},
			movement{BalancePending, EntryDisputeHold, grown})
	}
	return posting{scope: r.Scope(), sourceID: r.ID, at: now, lines: lines}, nil
}

// refundedInFull makes the locked paid payment p refunded (with its event)
// once the refunds that succeeded add up to its amount.
func (s *Store) refundedInFull(ctx context.Context, tx bun.Tx, p *Payment) error {
	if p.Status != StatusPaid {
		return nil
	}
	if p.AmountRefundedCents < p.ReceivedCents() {
		return nil
	}
	_, err := s.apply(ctx, tx, p, func(p *Payment, now time.Time) (string, error) {
		p.Status, p.RefundedAt = StatusRefunded, &now
		return EventPaymentRefunded, nil
	})
	return err
}

// RefundPayment refunds a paid payment in one call, in full or as in asks
// (AmountCents 0: all that is left): in test mode the refund succeeds at
// once (the payment is refunded when that makes it whole); in live mode it
// is pending while the devolução is at the PSP, and the payment becomes
// refunded when its refunds that succeeded add up to it. It returns the
// refund and the payment after it.
func (s *Store) RefundPayment(ctx context.Context, scope Scope, ref string, in NewRefund) (*Refund, *Payment, error) {
	var p *Payment
	var r *Refund
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if p, err = lockPayment(ctx, tx, scope, ref); err != nil {
			return err
		}
		r, err = s.createRefund(ctx, tx, p, in)
		if err != nil || p.Livemode {
			return err
		}
		if err := s.settleRefund(ctx, tx, r, RefundResult{Status: RefundSucceeded}); err != nil {
			return err
		}
		p, err = lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(p.ID))
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return r, p, nil
}

// insertLostDisputeRefund records what a lost dispute returned to the
// payer: the amount it held, done (the payer's bank took it back), with
// its share of the fee.
func (s *Store) insertLostDisputeRefund(ctx context.Context, tx bun.Tx, p *Payment, d *Dispute, feeCents int64, now time.Time) (*Refund, error) {
	r := &Refund{
		ID: ids.New(ids.PrefixRefund), AccountID: p.AccountID, Livemode: p.Livemode, PaymentID: p.ID,
		AmountCents: d.AmountCents, FeeCents: feeCents, Reason: RefundDisputeLost, Status: RefundSucceeded, DisputeID: &d.ID,
		CreatedAt: now, UpdatedAt: now, CompletedAt: &now,
	}
	if _, err := tx.NewInsert().Model(r).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: insert refund: %w", translate(err))
	}
	return r, nil
}

// RefundsForPayment lists a payment's refunds, oldest first.
func (s *Store) RefundsForPayment(ctx context.Context, scope Scope, paymentID uuid.UUID) ([]Refund, error) {
	out, err := ofPayment[Refund](ctx, s.idb(ctx), scope, paymentID, "id")
	if err != nil {
		return nil, fmt.Errorf("store: refunds: %w", err)
	}
	return out, nil
}

// Refund returns one of the scope's refunds.
func (s *Store) Refund(ctx context.Context, scope Scope, id string) (*Refund, error) {
	r := new(Refund)
	err := s.idb(ctx).NewSelect().Model(r).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: refund: %w", translate(err))
	}
	return r, nil
}

// RefundByID returns the refund id of any account, for the PSP worker.
func (s *Store) RefundByID(ctx context.Context, id string) (*Refund, error) {
	r := new(Refund)
	if err := s.idb(ctx).NewSelect().Model(r).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: refund: %w", translate(err))
	}
	return r, nil
}

// RefundByDevolucaoID returns the refund whose devolução id at the PSP this
// is (a callback names devoluções so).
func (s *Store) RefundByDevolucaoID(ctx context.Context, devolucaoID string) (*Refund, error) {
	return s.RefundByID(ctx, ids.PrefixRefund+"_"+devolucaoID)
}

// ListRefunds returns one page of the scope's refunds, newest first.
func (s *Store) ListRefunds(ctx context.Context, p IDListParams) ([]Refund, bool, error) {
	var out []Refund
	hasMore, err := listByID(ctx, s.idb(ctx).NewSelect().Model(&out), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list refunds: %w", err)
	}
	return out, hasMore, nil
}
