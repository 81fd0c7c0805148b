package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/pix"
	"payments/store/internal/pg"
)

// A live payment's charge lives at the PSP: it is created here without a
// BR Code (ChargeRegistering) together with the call that registers it,
// and becomes payable when the PSP answers with its own code
// (RegisterCharge). payment.created is written then, with the code.

// ErrLiveModeOff means a live payment was asked for with no PSP configured.
var ErrLiveModeOff = errors.New("store: live mode is off: no PSP is configured")

// CreateLivePayment stores a live payment p (built by BuildPayment) that
// the PSP has yet to register, with the call that registers it, in a
// transaction of its own that commits now: the PSP worker must see it while
// the request waits for it. The request holds no transaction of its own
// (the API's live creation keeps its Idempotency-Key itself): one that did
// would hold a connection while this one takes another (held_conn.go).
// With key (the request's Idempotency-Key) a retry of the same request
// finds the payment the first one started and gets it as it stands
// (replayed); the same key with another request (hash) is
// ErrIdempotencyMismatch. A taken external_id is a ConflictError.
func (s *Store) CreateLivePayment(ctx context.Context, p *Payment, key string, hash []byte) (_ *Payment, replayed bool, _ error) {
	var existing *Payment
	err := s.db.RunInTx(context.WithoutCancel(s.takesConn(ctx, "a live payment's creation")), &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) (err error) {
		existing, err = s.createLivePaymentIn(ctx, tx, p, key, hash)
		return err
	})
	switch {
	case err != nil:
		return nil, false, err
	case existing != nil && !bytes.Equal(existing.CreationHash, hash):
		return nil, false, ErrIdempotencyMismatch
	case existing != nil:
		return existing, true, nil
	}
	return p, false, nil
}

// createLivePaymentIn stores the live payment p in tx with the call that
// registers its charge at the PSP (see CreateLivePayment), or returns the
// payment that key created before.
func (s *Store) createLivePaymentIn(ctx context.Context, tx bun.Tx, p *Payment, key string, hash []byte) (existing *Payment, _ error) {
	p.BRCode, p.QRCodeURL, p.ChargeState = "", "", ChargeRegistering
	if key != "" {
		p.CreationKey, p.CreationHash = &key, hash
	}
	q := tx.NewInsert().Model(p)
	if key != "" {
		q = q.On("CONFLICT (account_id, livemode, creation_key) WHERE creation_key IS NOT NULL DO NOTHING")
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: create live payment: %w", translate(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		existing = new(Payment)
		err := tx.NewSelect().Model(existing).
			Where("account_id = ? AND livemode = ? AND creation_key = ?", p.AccountID, p.Livemode, key).Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("store: live payment by creation key: %w", err)
		}
		return existing, nil
	}
	if err := s.auditOn(ctx, tx, AuditRecord{Scope: p.Scope(), Action: EventPaymentCreated, ObjectID: p.ID.String(),
		Changes: Changes{"status": {nil, p.Status}, "amount_cents": {nil, p.AmountCents}}}); err != nil {
		return nil, err
	}
	return nil, s.queueCall(ctx, tx, &p.AccountID, CallCobCreate, p.ID.String(), time.Time{})
}

// WaitForCharge polls the live payment id until the PSP registered (or
// refused) its charge, or until deadline, and returns it as it then is.
func (s *Store) WaitForCharge(ctx context.Context, id uuid.UUID, deadline time.Time) (*Payment, error) {
	wait := 10 * time.Millisecond
	for {
		p, err := s.PublicPayment(ctx, id.String())
		if err != nil || p.ChargeState != ChargeRegistering || !time.Now().Before(deadline) {
			return p, err
		}
		select {
		case <-ctx.Done():
			return p, nil
		case <-time.After(min(wait, time.Until(deadline))):
		}
		wait = min(wait*2, 100*time.Millisecond)
	}
}

// RegisterCharge records that the PSP registered the live charge id: the
// payment takes the PSP's BR Code (naming the merchant) and, if still pending, becomes payable
// and writes its payment.created event. A payment canceled while its
// charge was being registered queues the charge's removal instead. A
// charge registered before is left as it is: the call may be made twice.
func (s *Store) RegisterCharge(ctx context.Context, id uuid.UUID, brCode string) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(id))
		if err != nil || p.ChargeState != ChargeRegistering {
			return err
		}
		acct, err := accountIn(ctx, tx, p.AccountID)
		if err != nil {
			return err
		}
		// The PSP's code names its customer, the platform; the payer reads
		// the merchant's name, as on every code made here. A code that does
		// not decode is kept as the PSP made it: it still pays.
		if named, err := pix.WithMerchantName(brCode, acct.Name); err == nil {
			brCode = named
		}
		p.BRCode, p.ChargeState = brCode, ChargeRegistered
		p.QRCodeURL = s.charges.BaseURL + "/pay/" + p.ID.String() + "/qr.png"
		_, err = tx.NewUpdate().Model(p).Column("br_code", "qr_code_url", "charge_state").WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: register charge: %w", err)
		}
		// The PSP's doing, written by its worker: its own audit row.
		if err := s.auditOn(ctx, tx, AuditRecord{Scope: p.Scope(), Action: "payment.charge_registered", ObjectID: p.ID.String(),
			Changes: Changes{"charge_state": {ChargeRegistering, ChargeRegistered}}}); err != nil {
			return err
		}
		switch {
		case p.Status == StatusPending && p.SubscriptionID != nil:
			// A subscription's first cycle: announced with the QR composto
			// its recurrence's registration makes of this code (RegisterRec).
			return nil
		case p.Status == StatusPending:
			return s.recordPaymentEvent(ctx, tx, EventPaymentCreated, p)
		case p.Status == StatusCanceled:
			return s.queueCall(ctx, tx, &p.AccountID, CallCobRemove, p.ID.String(), time.Time{})
		}
		return nil
	})
}

// FailCharge records that the PSP refused the live charge id: it can never
// be paid, so a pending payment is canceled (with its event).
func (s *Store) FailCharge(ctx context.Context, id uuid.UUID) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(id))
		if err != nil || p.ChargeState != ChargeRegistering {
			return err
		}
		p.ChargeState = ChargeFailed
		if _, err := tx.NewUpdate().Model(p).Column("charge_state").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: fail charge: %w", err)
		}
		if err := s.auditOn(ctx, tx, AuditRecord{Scope: p.Scope(), Action: "payment.charge_refused", ObjectID: p.ID.String(),
			Changes: Changes{"charge_state": {ChargeRegistering, ChargeFailed}}}); err != nil {
			return err
		}
		_, err = s.apply(ctx, tx, p, func(p *Payment, now time.Time) (string, error) {
			if p.Status != StatusPending {
				return "", nil
			}
			p.Status, p.CanceledAt = StatusCanceled, &now
			if p.Cycle != nil {
				p.Cycle.Status, p.Cycle.NextAttemptDate = CycleCanceled, nil
			}
			return EventPaymentCanceled, nil
		})
		return err
	})
}
