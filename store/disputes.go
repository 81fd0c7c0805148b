package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/store/ids"
	"payments/store/internal/pg"
)

// Dispute statuses: open -> won | lost.
const (
	DisputeOpen = "open"
	DisputeWon  = "won"
	DisputeLost = "lost"
)

// DisputeStatuses lists every dispute status.
var DisputeStatuses = []string{DisputeOpen, DisputeWon, DisputeLost}

// DisputeReasons are the grounds MED 2.0 accepts for claiming a transfer
// back: fraud, coercion and an institution's operational failure (never a
// commercial disagreement).
var DisputeReasons = []string{"fraud", "coercion", "operational_failure"}

// A dispute's stage, beside its status: the money blocked, the
// institutions analysing (once the merchant answered, or its deadline
// passed), decided (won or lost).
const (
	StageBlocked     = "blocked"
	StageUnderReview = "under_review"
	StageDecided     = "decided"
)

// DisputeStages lists every stage, in order.
var DisputeStages = []string{StageBlocked, StageUnderReview, StageDecided}

// MED 2.0's clock from the report: the merchant answers within
// DisputeRespondWithin (so its PSP can weigh the answer), the institutions
// analyse within 7 days and return what they decide within 11.
const (
	DisputeRespondWithin  = 3 * 24 * time.Hour
	DisputeAnalysisWithin = 7 * 24 * time.Hour
	DisputeReturnWithin   = 11 * 24 * time.Hour
)

// Dispute is a MED 2.0 claim (an infração) on a paid payment. It holds, in
// the pending balance, what it claims of what is still the merchant's of
// the payment: its amount less what its refunds returned or are returning,
// less what its other open disputes hold (a refund that fails while it is
// open adds to the hold, up to the claim). Won releases the hold; lost
// returns it to the payer as a refund, with its share of the fee. While it
// is open the payment takes no new refund.
type Dispute struct {
	bun.BaseModel `bun:"table:disputes"`

	ID        string    `bun:"id,pk"`
	AccountID string    `bun:"account_id"`
	Livemode  bool      `bun:"livemode"`
	PaymentID uuid.UUID `bun:"payment_id,type:uuid"`
	// AmountCents is what it holds; AmountReportedCents what the payer's
	// bank reported (it holds no more than was still the merchant's).
	AmountCents         int64  `bun:"amount_cents"`
	AmountReportedCents int64  `bun:"amount_reported_cents"`
	Reason              string `bun:"reason"`
	Status              string `bun:"status"`
	Stage               string `bun:"stage"`
	// PSPReference is the PSP's id of the infração (idInfracao).
	PSPReference     *string    `bun:"psp_reference"`
	RespondBy        time.Time  `bun:"respond_by"`
	AnalysisDeadline time.Time  `bun:"analysis_deadline"`
	ReturnDeadline   time.Time  `bun:"return_deadline"`
	DefenseText      *string    `bun:"defense_text"`
	DefendedAt       *time.Time `bun:"defended_at"`
	RemindedAt       *time.Time `bun:"reminded_at"`
	CreatedAt        time.Time  `bun:"created_at"`
	UpdatedAt        time.Time  `bun:"updated_at"`
	ClosedAt         *time.Time `bun:"closed_at"`
	// Evidence is the defense's files (without their bytes), read with it.
	Evidence []DisputeEvidence `bun:"-"`
}

// DisputeEvidence is one file of a defense.
type DisputeEvidence struct {
	bun.BaseModel `bun:"table:dispute_evidence"`

	ID          string    `bun:"id,pk"`
	DisputeID   string    `bun:"dispute_id"`
	AccountID   string    `bun:"account_id"`
	Livemode    bool      `bun:"livemode"`
	FileName    string    `bun:"file_name"`
	ContentType string    `bun:"content_type"`
	SizeBytes   int       `bun:"size_bytes"`
	SHA256      string    `bun:"sha256"`
	Content     []byte    `bun:"content"`
	CreatedAt   time.Time `bun:"created_at"`
}

// Scope is the account and mode the dispute belongs to.
func (d *Dispute) Scope() Scope { return Scope{AccountID: d.AccountID, Livemode: d.Livemode} }

// DisputeReport is what a payer's bank reports: its grounds, the amount it
// claims (0: all that was received) and, through a PSP, the PSP's id of it
// and the merchant's deadline (nil: DisputeRespondWithin from now).
type DisputeReport struct {
	Reason       string
	AmountCents  int64
	PSPReference *string
	RespondBy    *time.Time
}

// ErrDisputeAmount is a report claiming more than the payment received,
// or less than a cent.
var ErrDisputeAmount = errors.New("store: a dispute claims between 1 cent and what the payment received")

// OpenDispute opens a dispute on the paid payment ref (the test helper's
// path). A payment in another status is an InvalidTransitionError. A
// payment may have several.
func (s *Store) OpenDispute(ctx context.Context, scope Scope, ref string, report DisputeReport) (*Dispute, error) {
	var d *Dispute
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPayment(ctx, tx, scope, ref)
		if err != nil {
			return err
		}
		d, err = s.openDispute(ctx, tx, p, report)
		return err
	})
	return d, err
}

// openDispute holds, under a new dispute, what it claims of what is still
// the merchant's of the locked payment p: received, less what refunds
// returned or are returning, less what other open disputes hold.
func (s *Store) openDispute(ctx context.Context, tx bun.Tx, p *Payment, report DisputeReport) (*Dispute, error) {
	if p.Status != StatusPaid {
		return nil, &InvalidTransitionError{Status: p.Status}
	}
	reported := report.AmountCents
	if reported == 0 {
		reported = p.ReceivedCents()
	}
	if reported < 1 || reported > p.ReceivedCents() {
		return nil, ErrDisputeAmount
	}
	sums, err := refundSums(ctx, tx, p.ID)
	if err != nil {
		return nil, err
	}
	var heldByOthers int64
	if err := tx.NewRaw(`SELECT coalesce(sum(amount_cents), 0) FROM disputes WHERE payment_id = ? AND status = ?`,
		p.ID, DisputeOpen).Scan(ctx, &heldByOthers); err != nil {
		return nil, fmt.Errorf("store: what open disputes hold: %w", err)
	}
	now := s.Now()
	respondBy := now.Add(DisputeRespondWithin)
	if report.RespondBy != nil {
		respondBy = *report.RespondBy
	}
	d := &Dispute{
		ID: ids.New(ids.PrefixDispute), AccountID: p.AccountID, Livemode: p.Livemode, PaymentID: p.ID,
		AmountCents: max(min(reported, p.ReceivedCents()-sums.outstanding-heldByOthers), 0), AmountReportedCents: reported,
		Reason: report.Reason, Status: DisputeOpen, Stage: StageBlocked, PSPReference: report.PSPReference,
		RespondBy: respondBy, AnalysisDeadline: now.Add(DisputeAnalysisWithin), ReturnDeadline: now.Add(DisputeReturnWithin),
		CreatedAt: now, UpdatedAt: now,
	}
	if _, err := tx.NewInsert().Model(d).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: insert dispute: %w", translate(err))
	}
	err = s.post(ctx, tx, posting{scope: d.Scope(), sourceID: d.ID, at: now, lines: []movement{
		{BalanceAvailable, EntryDisputeHold, -d.AmountCents},
		{BalancePending, EntryDisputeHold, d.AmountCents},
	}})
	if err != nil {
		return nil, err
	}
	return d, s.recordEvent(ctx, tx, EventDisputeOpened, d.AccountID, d.Livemode, d.ID, d, now)
}

// CloseDispute moves an open dispute to status (won or lost). Closing it
// again with the same status returns it unchanged; the other status is an
// InvalidTransitionError.
func (s *Store) CloseDispute(ctx context.Context, scope Scope, id, status string) (*Dispute, error) {
	d := new(Dispute)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockDisputed(ctx, tx, d, "id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode)
		if err != nil {
			return err
		}
		return s.closeDispute(ctx, tx, d, p, status)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// lockDisputed locks, for tx, the payment of the dispute where selects and
// then the dispute, read into d with its evidence: payment first, as every
// path that locks both does (a refund's end locks the payment before it
// grows the hold).
func lockDisputed(ctx context.Context, tx bun.Tx, d *Dispute, where string, args ...any) (*Payment, error) {
	if err := tx.NewSelect().Model(d).Where(where, args...).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: dispute: %w", translate(err))
	}
	p, err := lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(d.PaymentID))
	if err != nil {
		return nil, fmt.Errorf("store: disputed payment: %w", err)
	}
	if err := tx.NewSelect().Model(d).WherePK().For("UPDATE").Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: dispute: %w", translate(err))
	}
	// Its events carry it whole: its defense's files with it.
	one := []Dispute{*d}
	if err := readEvidence(ctx, tx, one); err != nil {
		return nil, err
	}
	*d = one[0]
	return p, nil
}

// closeDispute settles the locked dispute d of the locked payment p. Won
// releases the hold. Lost returns the hold to the payer: a refund of what
// it held (none when it held nothing) with its share of the fee, and the
// payment becomes refunded once its refunds that succeeded add up to it.
func (s *Store) closeDispute(ctx context.Context, tx bun.Tx, d *Dispute, p *Payment, status string) error {
	switch {
	case d.Status == status:
		return nil
	case d.Status != DisputeOpen:
		return &InvalidTransitionError{Object: "dispute", Status: d.Status}
	}
	now := s.Now()
	d.Status, d.Stage, d.UpdatedAt, d.ClosedAt = status, StageDecided, now, &now
	if _, err := tx.NewUpdate().Model(d).Column("status", "stage", "updated_at", "closed_at").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("store: close dispute: %w", err)
	}
	if status == DisputeWon {
		err := s.post(ctx, tx, posting{scope: d.Scope(), sourceID: d.ID, at: now, lines: []movement{
			{BalancePending, EntryDisputeRelease, -d.AmountCents},
			{BalanceAvailable, EntryDisputeRelease, d.AmountCents},
		}})
		if err != nil {
			return err
		}
		return s.recordEvent(ctx, tx, EventDisputeWon, d.AccountID, d.Livemode, d.ID, d, now)
	}

	if d.AmountCents > 0 {
		sums, err := refundSums(ctx, tx, p.ID)
		if err != nil {
			return err
		}
		r, err := s.insertLostDisputeRefund(ctx, tx, p, d, sums.feeShare(p, d.AmountCents), now)
		if err != nil {
			return err
		}
		if err := addRefunded(ctx, tx, p, r); err != nil {
			return err
		}
		// A split charge's accounts give back their shares of what was lost.
		loss := posting{scope: d.Scope(), sourceID: d.ID, at: now, lines: []movement{
			{BalancePending, EntryDisputeLoss, -d.AmountCents},
			{BalanceAvailable, EntryFeeRefund, r.FeeCents},
		}}
		if err := s.postAll(ctx, tx, append([]posting{loss}, splitPostings(p, r.ID, EntrySplitReturn, now, negate(p.splitShares(d.AmountCents)))...)); err != nil {
			return err
		}
	}
	if err := s.recordEvent(ctx, tx, EventDisputeLost, d.AccountID, d.Livemode, d.ID, d, now); err != nil {
		return err
	}
	return s.refundedInFull(ctx, tx, p)
}

// PSPDispute is the PSP's word on a dispute: its own reference, the PIX
// transfer disputed (endToEndId), the reason and the status now; and, when
// it says (MED 2.0), the amount the payer's bank claims (0: all), the
// merchant's deadline and the stage.
type PSPDispute struct {
	Reference   string
	EndToEndID  string
	Reason      string
	Status      string
	AmountCents int64
	RespondBy   *time.Time
	Stage       string
}

// ApplyPSPDispute brings the dispute the PSP names up to the status it
// reports, in one transaction. An unknown reference opens a dispute on the
// payment the transfer paid (and closes it at once when the PSP already
// reports won or lost, so a lost "opened" notification costs nothing). A
// repeated status changes nothing and reports duplicate. A transfer that paid
// no payment is ErrNotFound.
func (s *Store) ApplyPSPDispute(ctx context.Context, in PSPDispute) (d *Dispute, duplicate bool, err error) {
	d = new(Dispute)
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockDisputed(ctx, tx, d, "psp_reference = ?", in.Reference)
		switch {
		case errors.Is(err, ErrNotFound):
			p, err := lockPaymentWhere(ctx, tx,
				"id = (SELECT payment_id FROM psp_notifications WHERE end_to_end_id = $1 AND outcome = $2)", in.EndToEndID, PixPaid)
			if err != nil {
				return fmt.Errorf("store: payment by endToEndId: %w", err)
			}
			// The same notification, delivered twice at once, opened it
			// while this one waited for the payment.
			err = tx.NewSelect().Model(d).Where("psp_reference = ?", in.Reference).For("UPDATE").Scan(ctx)
			if err == nil {
				return s.applyPSPStatus(ctx, tx, d, p, in, &duplicate)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("store: dispute by reference: %w", err)
			}
			opened, err := s.openDispute(ctx, tx, p, DisputeReport{Reason: in.Reason, AmountCents: in.AmountCents,
				PSPReference: &in.Reference, RespondBy: in.RespondBy})
			if err != nil {
				return err
			}
			*d = *opened
			if in.Status == DisputeOpen {
				return s.moveStage(ctx, tx, d, in.Stage)
			}
			return s.closeDispute(ctx, tx, d, p, in.Status)
		case err != nil:
			return fmt.Errorf("store: dispute by reference: %w", err)
		}
		return s.applyPSPStatus(ctx, tx, d, p, in, &duplicate)
	})
	if err != nil {
		return nil, false, err
	}
	return d, duplicate, nil
}

// ApplyPSPDisputeAudited is ApplyPSPDispute recorded in the audit trail as
// ctx's actor (the PSP, its callback or its worker's read), in the same
// transaction; a duplicate is not recorded.
func (s *Store) ApplyPSPDisputeAudited(ctx context.Context, in PSPDispute) (d *Dispute, duplicate bool, err error) {
	// InTx: the change joins the transaction its audit row is written in
	// (with its own, it committed apart, on a second connection).
	err = s.InTx(ctx, func(ctx context.Context) error {
		if d, duplicate, err = s.ApplyPSPDispute(ctx, in); err != nil || duplicate {
			return err
		}
		return s.Audit(ctx, AuditRecord{Scope: d.Scope(), Action: "dispute.updated", ObjectID: d.ID,
			Changes: Changes{"status": {nil, d.Status}, "stage": {nil, d.Stage}}})
	})
	return d, duplicate, err
}

// applyPSPStatus moves the locked dispute d of the locked payment p to the
// status (and, open, the stage) the PSP reports; what it has already is a
// duplicate.
func (s *Store) applyPSPStatus(ctx context.Context, tx bun.Tx, d *Dispute, p *Payment, in PSPDispute, duplicate *bool) error {
	switch {
	case d.Status == in.Status && (in.Status != DisputeOpen || slices.Index(DisputeStages, in.Stage) <= slices.Index(DisputeStages, d.Stage)):
		// The same word again, or an older one (the PSP had not yet
		// weighed the defense sent): a stage never moves back.
		*duplicate = true
		return nil
	case d.Status == in.Status:
		return s.moveStage(ctx, tx, d, in.Stage)
	case in.Status == DisputeOpen:
		return &InvalidTransitionError{Object: "dispute", Status: d.Status} // a closed dispute never reopens
	}
	return s.closeDispute(ctx, tx, d, p, in.Status)
}

// moveStage moves the locked open dispute d to stage (blocked to
// under_review: the institutions analyse), with dispute.updated; the stage
// it has, or none, changes nothing. Decided comes with won or lost.
func (s *Store) moveStage(ctx context.Context, tx bun.Tx, d *Dispute, stage string) error {
	if stage == "" || stage == d.Stage {
		return nil
	}
	if d.Status != DisputeOpen || stage == StageDecided || !slices.Contains(DisputeStages, stage) {
		return &InvalidTransitionError{Object: "dispute", Status: d.Status}
	}
	now := s.Now()
	d.Stage, d.UpdatedAt = stage, now
	if _, err := tx.NewUpdate().Model(d).Column("stage", "updated_at").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("store: dispute stage: %w", err)
	}
	return s.recordEvent(ctx, tx, EventDisputeUpdated, d.AccountID, d.Livemode, d.ID, d, now)
}

// Dispute returns one of the scope's disputes.
func (s *Store) Dispute(ctx context.Context, scope Scope, id string) (*Dispute, error) {
	d := new(Dispute)
	err := s.idb(ctx).NewSelect().Model(d).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: dispute: %w", translate(err))
	}
	one := []Dispute{*d}
	if err := s.withEvidence(ctx, one); err != nil {
		return nil, err
	}
	return &one[0], nil
}

// DisputesForPayment lists a payment's disputes, oldest first.
func (s *Store) DisputesForPayment(ctx context.Context, scope Scope, paymentID uuid.UUID) ([]Dispute, error) {
	out, err := ofPayment[Dispute](ctx, s.idb(ctx), scope, paymentID, "id")
	if err != nil {
		return nil, fmt.Errorf("store: disputes of payment: %w", err)
	}
	return out, s.withEvidence(ctx, out)
}

// UnderOpenDispute returns which of the scope's payments ids have an open
// dispute: what a list of payments needs to show them as disputed.
func (s *Store) UnderOpenDispute(ctx context.Context, scope Scope, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	out := map[uuid.UUID]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	var disputed []uuid.UUID
	err := s.idb(ctx).NewSelect().Model((*Dispute)(nil)).Column("payment_id").
		Where("account_id = ? AND livemode = ? AND status = ? AND payment_id IN (?)", scope.AccountID, scope.Livemode, DisputeOpen, bun.List(ids)).
		Scan(ctx, &disputed)
	if err != nil {
		return nil, fmt.Errorf("store: payments under open dispute: %w", err)
	}
	for _, id := range disputed {
		out[id] = true
	}
	return out, nil
}

// ListDisputes returns one page of the scope's disputes, newest first.
func (s *Store) ListDisputes(ctx context.Context, p IDListParams) ([]Dispute, bool, error) {
	var out []Dispute
	hasMore, err := listByID(ctx, s.idb(ctx).NewSelect().Model(&out), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list disputes: %w", err)
	}
	return out, hasMore, s.withEvidence(ctx, out)
}
