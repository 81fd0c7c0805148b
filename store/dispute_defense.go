package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// A dispute's defense (MED 2.0): the merchant's account of the transfer
// and its evidence files, kept here and, live, sent to the PSP.

// A defense's bounds: its text, and its evidence files (PDF, PNG or JPEG;
// the whole request is also bound by the service's body limit).
const (
	MaxDefenseText   = 5000
	MaxEvidenceFiles = 5
	MaxEvidenceBytes = 2 << 20
	MaxEvidenceName  = 120
)

// EvidenceTypes are the evidence files taken, by their content.
var EvidenceTypes = []string{"application/pdf", "image/png", "image/jpeg"}

// DisputeDefense is the merchant's answer to a dispute: its account of the
// transfer and its evidence files.
type DisputeDefense struct {
	Text     string
	Evidence []EvidenceFile
}

// EvidenceFile is one file of a defense, its type read from its content.
type EvidenceFile struct {
	Name        string
	ContentType string
	Content     []byte
}

// ErrDisputeDefended is a second defense: a dispute takes one.
// ErrDefenseTooLate is a defense after the merchant's deadline.
var (
	ErrDisputeDefended = errors.New("store: the dispute has its defense already")
	ErrDefenseTooLate  = errors.New("store: the deadline to answer the dispute has passed")
)

// DefenseRefusal says why d takes no defense at now (nil: it takes one):
// a closed dispute is an InvalidTransitionError, one defended already
// ErrDisputeDefended, one past its deadline ErrDefenseTooLate. The store
// refuses by it and a page offers the form by it.
func (d *Dispute) DefenseRefusal(now time.Time) error {
	switch {
	case d.Status != DisputeOpen:
		return &InvalidTransitionError{Object: "dispute", Status: d.Status}
	case d.DefendedAt != nil:
		return ErrDisputeDefended
	case now.After(d.RespondBy):
		return ErrDefenseTooLate
	}
	return nil
}

// DefendDispute stores the merchant's defense of the scope's open dispute
// id, checked by the caller, and moves it under review (dispute.updated):
// its text, when, and its evidence files. A closed dispute is an
// InvalidTransitionError; one defended already ErrDisputeDefended; past
// its deadline ErrDefenseTooLate.
func (s *Store) DefendDispute(ctx context.Context, scope Scope, id string, def DisputeDefense) (*Dispute, error) {
	d := new(Dispute)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := lockDisputed(ctx, tx, d, "id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode); err != nil {
			return err
		}
		now := s.Now()
		if err := d.DefenseRefusal(now); err != nil {
			return err
		}
		for _, f := range def.Evidence {
			sum := sha256.Sum256(f.Content)
			e := DisputeEvidence{ID: ids.New(ids.PrefixEvidence), DisputeID: d.ID, AccountID: d.AccountID, Livemode: d.Livemode,
				FileName: f.Name, ContentType: f.ContentType, SizeBytes: len(f.Content), SHA256: hex.EncodeToString(sum[:]),
				Content: f.Content, CreatedAt: now}
			if _, err := tx.NewInsert().Model(&e).Exec(ctx); err != nil {
				return fmt.Errorf("store: insert evidence: %w", err)
			}
			e.Content = nil
			d.Evidence = append(d.Evidence, e)
		}
		d.DefenseText, d.DefendedAt, d.Stage, d.UpdatedAt = &def.Text, &now, StageUnderReview, now
		if _, err := tx.NewUpdate().Model(d).Column("defense_text", "defended_at", "stage", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: dispute defense: %w", err)
		}
		if d.Livemode && d.PSPReference != nil {
			// The PSP weighs it: sent by its worker, from the rows above.
			if err := s.queueCall(ctx, tx, &d.AccountID, CallInfracaoDefesa, d.ID, time.Time{}); err != nil {
				return err
			}
		}
		return s.recordEvent(ctx, tx, EventDisputeUpdated, d.AccountID, d.Livemode, d.ID, d, now)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// evidenceColumns are an evidence row without its bytes.
var evidenceColumns = []string{"id", "dispute_id", "account_id", "livemode", "file_name", "content_type", "size_bytes", "sha256", "created_at"}

// withEvidence reads the evidence (without its bytes) of disputes, in the
// order it was given.
func (s *Store) withEvidence(ctx context.Context, disputes []Dispute) error {
	return readEvidence(ctx, s.idb(ctx), disputes)
}

// readEvidence is withEvidence on db (a change's transaction: its events
// carry the dispute with its files).
func readEvidence(ctx context.Context, db bun.IDB, disputes []Dispute) error {
	if len(disputes) == 0 {
		return nil
	}
	byID := make(map[string]*Dispute, len(disputes))
	keys := make([]string, len(disputes))
	for i := range disputes {
		byID[disputes[i].ID], keys[i] = &disputes[i], disputes[i].ID
	}
	var files []DisputeEvidence
	if err := db.NewSelect().Model(&files).Column(evidenceColumns...).
		Where("dispute_id IN (?)", bun.List(keys)).Order("dispute_id", "id").Scan(ctx); err != nil {
		return fmt.Errorf("store: dispute evidence: %w", err)
	}
	for _, f := range files {
		d := byID[f.DisputeID]
		d.Evidence = append(d.Evidence, f)
	}
	return nil
}

// AnyEvidence returns one file of any account's defense, its bytes with
// it: what support staff read.
func (s *Store) AnyEvidence(ctx context.Context, disputeID, id string) (*DisputeEvidence, error) {
	e := new(DisputeEvidence)
	if err := s.idb(ctx).NewSelect().Model(e).Where("id = ? AND dispute_id = ?", id, disputeID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: evidence: %w", translate(err))
	}
	return e, nil
}

// Evidence returns one file of a defense, its bytes with it.
func (s *Store) Evidence(ctx context.Context, scope Scope, disputeID, id string) (*DisputeEvidence, error) {
	e := new(DisputeEvidence)
	err := s.idb(ctx).NewSelect().Model(e).
		Where("id = ? AND dispute_id = ? AND account_id = ? AND livemode = ?", id, disputeID, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: evidence: %w", translate(err))
	}
	return e, nil
}

// LiveDispute returns one of the account's live disputes with its
// evidence, bytes and all: what its defense's call sends to the PSP.
func (s *Store) LiveDispute(ctx context.Context, accountID, id string) (*Dispute, error) {
	d := new(Dispute)
	err := s.idb(ctx).NewSelect().Model(d).Where("id = ? AND account_id = ? AND livemode", id, accountID).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: dispute: %w", translate(err))
	}
	if err := s.idb(ctx).NewSelect().Model(&d.Evidence).Where("dispute_id = ?", id).Order("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: dispute evidence: %w", err)
	}
	return d, nil
}
