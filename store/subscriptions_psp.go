package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/pix"
	"payments/pix/calendar"
	"payments/store/internal/pg"
)

// A live subscription at the PSP (dispatcher/pspcalls does the calls):
// created here with the call that registers it (rec.create: its location,
// its recurrence, and on payer_bank_request the request to the payer's
// bank), it awaits the payer's authorization once the PSP has it. What
// the payer's bank does after (approve, reject, cancel; each cycle's
// debits) reaches the service as callbacks, hints confirmed by reading the
// recurrence (rec.check) or the cycle's charge (cobr.check) before
// anything changes here.

// SetSubscriptionLoc keeps the location the PSP made for the subscription
// id's recurrence, before the recurrence is asked for: a retry finds the
// recurrence through it.
func (s *Store) SetSubscriptionLoc(ctx context.Context, id string, locID int64, location string) error {
	_, err := s.idb(ctx).NewUpdate().Model((*Subscription)(nil)).Set("psp_loc_id = ?, psp_location = ?", locID, location).
		Where("id = ? AND psp_loc_id IS NULL", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: subscription location: %w", err)
	}
	return nil
}

// RegisterRec records the recurrence recID the PSP made for the
// subscription id. A QR journey's subscription then awaits its payer with
// its code: the recurrence's location in field 80, on a key (authorization
// only) or on the first cycle's charge, whose code becomes the same "QR
// composto" and whose payment.created is written now. payer_bank_request
// stays created until its request is pushed (SolicitedSubscription). Each
// is announced (subscription.created) when it awaits its payer.
func (s *Store) RegisterRec(ctx context.Context, id, recID string) (*Subscription, error) {
	sub := new(Subscription)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewSelect().Model(sub).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("store: subscription: %w", translate(err))
		}
		if sub.RecID != nil {
			return nil
		}
		sub.RecID, sub.UpdatedAt = &recID, s.Now()
		changes := Changes{"rec_id": {nil, recID}}
		if sub.Journey != JourneyPayerBank {
			changes["status"] = [2]any{sub.Status, SubscriptionAwaiting}
			sub.Status = SubscriptionAwaiting
			if err := s.prepareLiveCode(ctx, tx, sub); err != nil {
				return err
			}
		}
		if _, err := tx.NewUpdate().Model(sub).Column("rec_id", "status", "br_code", "checkout_url", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: register rec: %w", err)
		}
		return s.auditOn(ctx, tx, AuditRecord{Scope: sub.Scope(), Action: "subscription.registered", ObjectID: sub.ID, Changes: changes})
	})
	if err != nil {
		return nil, err
	}
	return sub, nil
}

// prepareLiveCode gives the live QR journey's subscription sub (now
// awaiting its payer) its code and page, as PrepareSubscription does in
// test mode, on the PSP's location, and announces it (subscription.created,
// as the API now answers); on the first-payment journey the first cycle's
// charge (the PSP's code) gains the recurrence and is announced after it
// (payment.created).
func (s *Store) prepareLiveCode(ctx context.Context, tx bun.Tx, sub *Subscription) error {
	if sub.PSPLocation == nil {
		return errors.New("store: the live subscription has no location at the PSP")
	}
	page := s.charges.BaseURL + "/pay/subscriptions/" + sub.ID
	sub.CheckoutURL = &page
	if sub.FirstPaymentID == nil {
		acct, err := accountIn(ctx, tx, sub.AccountID)
		if err != nil {
			return err
		}
		code, err := pix.BRCode{Key: s.charges.Receiver.Key, MerchantName: acct.Name, MerchantCity: s.charges.Receiver.City,
			RecurrenceLocation: *sub.PSPLocation}.Encode()
		if err != nil {
			return fmt.Errorf("store: subscription code: %w", err)
		}
		sub.BRCode = &code
		return s.recordEvent(ctx, tx, EventSubscriptionCreated, sub.AccountID, sub.Livemode, sub.ID, sub, sub.UpdatedAt)
	}
	p, err := lockPaymentWhere(ctx, tx, "id = $1", pg.UUID(*sub.FirstPaymentID))
	if err != nil {
		return err
	}
	if p.ChargeState != ChargeRegistered {
		return fmt.Errorf("store: the first cycle's charge is %s, not registered", p.ChargeState)
	}
	code, err := pix.WithRecurrence(p.BRCode, *sub.PSPLocation)
	if err != nil {
		return fmt.Errorf("store: subscription code: %w", err)
	}
	sub.BRCode, p.BRCode = &code, code
	if _, err := tx.NewUpdate().Model(p).Column("br_code").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("store: first cycle's code: %w", err)
	}
	if err := s.recordEvent(ctx, tx, EventSubscriptionCreated, sub.AccountID, sub.Livemode, sub.ID, sub, sub.UpdatedAt); err != nil {
		return err
	}
	if p.Status != StatusPending {
		return nil
	}
	return s.recordPaymentEvent(ctx, tx, EventPaymentCreated, p)
}

// WaitForRec polls the live subscription id until the PSP has its
// recurrence (it is no longer created) or until deadline, and returns it
// as it then is.
func (s *Store) WaitForRec(ctx context.Context, id string, deadline time.Time) (*Subscription, error) {
	wait := 10 * time.Millisecond
	for {
		sub, err := s.PublicSubscription(ctx, id)
		if err != nil || sub.Status != SubscriptionCreated || !time.Now().Before(deadline) {
			return sub, err
		}
		select {
		case <-ctx.Done():
			return sub, nil
		case <-time.After(min(wait, time.Until(deadline))):
		}
		wait = min(wait*2, 100*time.Millisecond)
	}
}

// LiveSubscriptionByRecID finds the live subscription whose recurrence is
// recID (ErrNotFound: not one of the service's).
func (s *Store) LiveSubscriptionByRecID(ctx context.Context, recID string) (*Subscription, error) {
	sub := new(Subscription)
	if err := s.idb(ctx).NewSelect().Model(sub).Where("rec_id = ? AND livemode", recID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: subscription by rec id: %w", translate(err))
	}
	return sub, nil
}

// LiveCycleByTxID finds the live cycle whose charge is txid (ErrNotFound:
// not one of the service's cycles).
func (s *Store) LiveCycleByTxID(ctx context.Context, txid string) (*Payment, error) {
	return s.scanPayment(ctx, `SELECT `+paymentColumns+` FROM payments
		WHERE correlation_id = $1 AND livemode AND subscription_id IS NOT NULL`, txid)
}

// SolicitedSubscription records that the PSP pushed the subscription id's
// request (solicRecID, "" when its id was lost with an answer) to the
// payer's bank: it awaits the payer.
func (s *Store) SolicitedSubscription(ctx context.Context, id, solicRecID string) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		sub := new(Subscription)
		if err := tx.NewSelect().Model(sub).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("store: subscription: %w", translate(err))
		}
		if sub.Status != SubscriptionCreated {
			return nil
		}
		sub.Status, sub.UpdatedAt = SubscriptionAwaiting, s.Now()
		if solicRecID != "" {
			sub.SolicRecID = &solicRecID
		}
		if _, err := tx.NewUpdate().Model(sub).Column("status", "solicrec_id", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: solicited subscription: %w", err)
		}
		if err := s.recordEvent(ctx, tx, EventSubscriptionCreated, sub.AccountID, sub.Livemode, sub.ID, sub, sub.UpdatedAt); err != nil {
			return err
		}
		return s.auditOn(ctx, tx, AuditRecord{Scope: sub.Scope(), Action: "subscription.registered", ObjectID: sub.ID,
			Changes: Changes{"status": {SubscriptionCreated, SubscriptionAwaiting}, "solicrec_id": {nil, solicRecID}}})
	})
}

// Where a recurrence stands at the PSP, as ApplyRec takes it.
const (
	RecApproved = "approved"
	RecRejected = "rejected"
	RecExpired  = "expired"
	RecCanceled = "canceled"
)

// ApplyRec brings the live subscription id to where the PSP says its
// recurrence stands (a status above; "" for still awaiting), canceled by
// canceledBy: each change with its event, once. A subscription already
// past that point is left as it is.
func (s *Store) ApplyRec(ctx context.Context, id, status, canceledBy string) (*Subscription, error) {
	var sub *Subscription
	var err error
	switch status {
	case RecApproved:
		sub, err = s.AuthorizeSubscription(ctx, nil, id)
	case RecRejected:
		sub, err = s.RejectSubscription(ctx, nil, id)
	case RecCanceled:
		sub, err = s.CancelSubscription(ctx, nil, id, canceledBy)
	case RecExpired:
		sub, err = s.changeSubscription(ctx, nil, id, func(ctx context.Context, tx bun.Tx, sub *Subscription, now time.Time) (string, error) {
			if sub.Status != SubscriptionAwaiting && sub.Status != SubscriptionActive {
				return "", nil
			}
			sub.Status, sub.EndedAt, sub.NextCycleOn = SubscriptionExpired, &now, nil
			return EventSubscriptionExpired, s.cancelOpenCycles(ctx, tx, sub)
		})
	default:
		return s.PublicSubscription(ctx, id)
	}
	var invalid *InvalidTransitionError
	if errors.As(err, &invalid) {
		// Already past it (a callback and the reconciler both told): as it is.
		return s.PublicSubscription(ctx, id)
	}
	return sub, err
}

// MarkRecChecked records that the reconciler read the subscription id's recurrence.
func (s *Store) MarkRecChecked(ctx context.Context, id string) error {
	_, err := s.idb(ctx).NewUpdate().Model((*Subscription)(nil)).Set("psp_checked_at = ?", s.Now()).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: rec checked: %w", err)
	}
	return nil
}

// RecsToCheck lists up to limit live subscriptions the PSP has and may
// have changed (awaiting their payer, or active) not read since before,
// least recently read first.
func (s *Store) RecsToCheck(ctx context.Context, before time.Time, limit int) ([]Subscription, error) {
	var subs []Subscription
	err := s.idb(ctx).NewSelect().Model(&subs).
		Where("livemode AND status IN (?, ?, ?) AND rec_id IS NOT NULL", SubscriptionCreated, SubscriptionAwaiting, SubscriptionActive).
		Where("psp_checked_at IS NULL OR psp_checked_at < ?", before).
		OrderExpr("psp_checked_at NULLS FIRST").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: recs to check: %w", err)
	}
	return subs, nil
}

// CyclesToCheck lists up to limit live cycles registered at the PSP whose
// debit (or retry) was due by today and not settled: a lost callback
// must not leave them open.
func (s *Store) CyclesToCheck(ctx context.Context, today calendar.Date, limit int) ([]CycleRef, error) {
	var ids []CycleRef
	err := s.idb(ctx).NewSelect().Model((*Payment)(nil)).ColumnExpr("id::text AS id, account_id").
		Where("livemode AND subscription_id IS NOT NULL AND status = ? AND charge_state = ?", StatusPending, ChargeRegistered).
		Where("coalesce(cycle->>'next_attempt_date', cycle->>'due_date') <= ?", today.String()).
		Where("br_code = ''").OrderExpr("id").Limit(int64(limit)).Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("store: cycles to check: %w", err)
	}
	return ids, nil
}

// CycleRef names a cycle and its account.
type CycleRef struct {
	ID        string `bun:"id"`
	AccountID string `bun:"account_id"`
}

// QueueCheck makes a pending call of kind about objectID due now, or
// queues one: a callback (or the reconciler) asks for the PSP to be read.
// A call in flight (leased) may have read the PSP before what the
// callback tells of: a new one is queued beside it rather than the news
// folded into it (seen: a refused debit's callback absorbed by the read
// its charge's activation had started, the retry never scheduled).
func (s *Store) QueueCheck(ctx context.Context, accountID *string, kind, objectID string) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.Now()
		res, err := tx.NewUpdate().Model((*PSPCall)(nil)).Set("next_attempt_at = ?", now).
			Where("kind = ? AND object_id = ? AND status = ?", kind, objectID, CallPending).
			Where("lease_expires_at IS NULL OR lease_expires_at <= ?", now).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: wake check: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, '')", PSPCallsChannel)
			return err
		}
		return s.queueCall(ctx, tx, accountID, kind, objectID, time.Time{})
	})
}

// RegisterCycleCharge records that the PSP scheduled the live cycle id's
// debit (cobr): no code, the payer's bank debits it on its date. A cycle
// canceled meanwhile gets its charge removed; any other gets a read of
// the charge queued with it: a callback that came while the registration
// was in flight (its request timed out and was made again, say) found the
// charge not registered yet and read nothing, and the debit it told of
// would otherwise wait for the reconciler (seen: a refused debit missed
// for a minute when the first request's answer was lost under load).
func (s *Store) RegisterCycleCharge(ctx context.Context, id string) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p, err := lockPaymentWhere(ctx, tx, "id = $1", id)
		if err != nil || p.ChargeState != ChargeRegistering {
			return err
		}
		p.ChargeState = ChargeRegistered
		if _, err := tx.NewUpdate().Model(p).Column("charge_state").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: register cycle charge: %w", err)
		}
		if err := s.auditOn(ctx, tx, AuditRecord{Scope: p.Scope(), Action: "payment.charge_registered", ObjectID: p.ID.String(),
			Changes: Changes{"charge_state": {ChargeRegistering, ChargeRegistered}}}); err != nil {
			return err
		}
		if p.Status == StatusCanceled {
			return s.queueCall(ctx, tx, &p.AccountID, CallCobRemove, p.ID.String(), time.Time{})
		}
		return s.queueCall(ctx, tx, &p.AccountID, CallCobRCheck, p.ID.String(), time.Time{})
	})
}

// CobRState is where a cycle's recurring charge stands at the PSP: its
// status (as ApplyCobR names them) and the dates of its refused attempts,
// in order, with the last refusal's reason.
type CobRState struct {
	Status       string
	RefusedDates []calendar.Date
	Reason       string
}

// States of a recurring charge ApplyCobR takes.
const (
	CobRScheduled = "scheduled"
	CobRPaid      = "paid" // its Pix pays the cycle (RecordPixNotification)
	CobRRejected  = "rejected"
	CobRCanceled  = "canceled"
)

// ApplyCobR brings the live cycle id to where its recurring charge stands:
// each refused attempt not yet counted is counted (retried within the
// policy, with the retry's call queued, or failed for good); a charge the
// PSP rejected or canceled ends the cycle. Applying the same state twice
// changes nothing.
func (s *Store) ApplyCobR(ctx context.Context, id string, st CobRState) (*Payment, error) {
	var p *Payment
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		if p, err = lockPaymentWhere(ctx, tx, "id = $1", id); err != nil {
			return err
		}
		if p.Cycle == nil || p.Status != StatusPending {
			return nil
		}
		before, beforeStatus := *p.Cycle, p.Status
		defer func() {
			if err != nil || (p.Cycle.Attempts == before.Attempts && p.Status == beforeStatus) {
				return
			}
			// The payer's bank's doing, read by the PSP worker: its own audit row.
			action := "payment.debit_refused"
			if p.Cycle.Attempts == before.Attempts {
				action = EventPaymentCanceled
			}
			err = s.auditOn(ctx, tx, AuditRecord{Scope: p.Scope(), Action: action, ObjectID: p.ID.String(), Changes: Changes{
				"status": {beforeStatus, p.Status}, "cycle_status": {before.Status, p.Cycle.Status}, "attempts": {before.Attempts, p.Cycle.Attempts}}})
		}()
		for i := p.Cycle.Attempts; i < len(st.RefusedDates) && p.Status == StatusPending; i++ {
			date := st.RefusedDates[i]
			if _, err := s.apply(ctx, tx, p, func(p *Payment, now time.Time) (string, error) {
				return failAttempt(p, now, date, st.Reason), nil
			}); err != nil {
				return err
			}
			if p.Cycle.Status == CycleRetrying && i == len(st.RefusedDates)-1 && st.Status == CobRScheduled {
				if err := s.queueCall(ctx, tx, &p.AccountID, CallCobRRetry, p.ID.String(), time.Time{}); err != nil {
					return err
				}
			}
		}
		if p.Status != StatusPending {
			return nil
		}
		switch st.Status {
		case CobRRejected:
			_, err = s.apply(ctx, tx, p, func(p *Payment, now time.Time) (string, error) {
				p.Status, p.ExpiredAt, p.Cycle.Status, p.Cycle.NextAttemptDate = StatusExpired, &now, CycleFailed, nil
				return EventPaymentFailed, nil
			})
		case CobRCanceled:
			_, err = s.apply(ctx, tx, p, func(p *Payment, now time.Time) (string, error) {
				p.Status, p.CanceledAt, p.Cycle.Status, p.Cycle.NextAttemptDate = StatusCanceled, &now, CycleCanceled, nil
				return EventPaymentCanceled, nil
			})
		}
		return err
	})
	return p, err
}
