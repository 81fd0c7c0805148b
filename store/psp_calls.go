package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// Kinds of calls to the PSP.
const (
	CallCobCreate       = "cob.create"       // register a live charge (PUT /cob/{txid})
	CallCobRemove       = "cob.remove"       // remove it (PATCH /cob/{txid})
	CallPixConfirm      = "pix.confirm"      // confirm a notified transfer (GET /pix/{e2eid})
	CallDevolucaoCreate = "devolucao.create" // return money (PUT /pix/{e2eid}/devolucao/{id})
	CallDevolucaoCheck  = "devolucao.check"  // learn how it ended (GET .../devolucao/{id})
	CallPayoutCreate    = "payout.create"    // pay a withdrawal out (PUT /v3/gn/pix/{idEnvio})
	CallPayoutCheck     = "payout.check"     // learn how it ended
	CallTransferReturn  = "transfer.return"  // return a transfer that paid nothing (PUT, then GET, .../devolucao/{id})
	CallLoteCobVCreate  = "lotecobv.create"  // register a batch's due-date charges (PUT /lotecobv/{id})
	CallLoteCobVCheck   = "lotecobv.check"   // learn how each went (GET /lotecobv/{id}, then GET /cobv/{txid})
	CallRecCreate       = "rec.create"       // register a live subscription (POST /locrec, POST /rec, POST /solicrec)
	CallRecCheck        = "rec.check"        // learn where its recurrence stands (GET /rec/{idRec})
	CallRecCancel       = "rec.cancel"       // cancel it (PATCH /rec/{idRec})
	CallCobRCreate      = "cobr.create"      // register a cycle's recurring charge (PUT /cobr/{txid})
	CallCobRCheck       = "cobr.check"       // learn how its attempts went (GET /cobr/{txid})
	CallCobRRetry       = "cobr.retry"       // ask for another attempt (POST /cobr/{txid}/retentativa/{data})
	CallInfracaoDefesa  = "infracao.defesa"  // send a dispute's defense (POST /v2/gn/infracoes/{id}/defesa)
	CallInfracaoCheck   = "infracao.check"   // read an infração the PSP says changed (GET /v2/gn/infracoes/{id})
	CallMEDRequest      = "med.request"      // contest a withdrawal (PUT /v2/gn/med/{id})
	CallMEDCheck        = "med.check"        // learn how the contest ended (GET /v2/gn/med/{id})
)

// CallKinds lists every kind of call.
var CallKinds = []string{CallCobCreate, CallCobRemove, CallPixConfirm, CallDevolucaoCreate, CallDevolucaoCheck, CallPayoutCreate, CallPayoutCheck,
	CallTransferReturn, CallLoteCobVCreate, CallLoteCobVCheck, CallRecCreate, CallRecCheck, CallRecCancel, CallCobRCreate, CallCobRCheck,
	CallCobRRetry, CallInfracaoDefesa, CallInfracaoCheck, CallMEDRequest, CallMEDCheck}

// Statuses of a call.
const (
	CallPending   = "pending"
	CallSucceeded = "succeeded"
	CallFailed    = "failed"
)

// PSPCallsChannel is the NOTIFY channel that wakes the PSP worker.
const PSPCallsChannel = "psp_calls"

// PrefixPSPCall starts call ids.
const PrefixPSPCall = "psc"

// PSPCall is one call to the PSP: written in the transaction of the state
// change that needs it, sent by the PSP worker (dispatcher/pspcalls) with
// retries under a lease.
type PSPCall struct {
	bun.BaseModel `bun:"table:psp_calls"`

	ID             string          `bun:"id,pk"`
	AccountID      *string         `bun:"account_id"`
	Kind           string          `bun:"kind"`
	ObjectID       string          `bun:"object_id"`
	Request        json.RawMessage `bun:"request,type:jsonb"`
	Status         string          `bun:"status"`
	Attempts       int             `bun:"attempts"`
	NextAttemptAt  time.Time       `bun:"next_attempt_at"`
	LeaseToken     *string         `bun:"lease_token"`
	LeaseExpiresAt *time.Time      `bun:"lease_expires_at"`
	LastError      *string         `bun:"last_error"`
	Response       json.RawMessage `bun:"response,type:jsonb"`
	CreatedAt      time.Time       `bun:"created_at"`
	UpdatedAt      time.Time       `bun:"updated_at"`
	CompletedAt    *time.Time      `bun:"completed_at"`
}

// queueCall writes a call in tx, due at (or now, when zero), and wakes the
// worker at commit. The worker builds the request from the object when it
// sends it (a charge's expiry counts from then) and records it with the
// outcome.
func (s *Store) queueCall(ctx context.Context, tx bun.Tx, accountID *string, kind, objectID string, at time.Time) error {
	return execIn(ctx, tx, "queue psp call "+kind, s.queueCallStatement(accountID, kind, objectID, at))
}

// QueueCall queues a call apart from any state change: the next step of
// one that succeeded (a devolução's check after its request), due at.
func (s *Store) QueueCall(ctx context.Context, accountID *string, kind, objectID string, at time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return s.queueCall(ctx, tx, accountID, kind, objectID, at)
	})
}

// WakeCalls makes the pending calls of kind about these objects due now: a
// callback said something changed, which the call then asks the PSP about.
func (s *Store) WakeCalls(ctx context.Context, kind string, objectIDs []string) error {
	if len(objectIDs) == 0 {
		return nil
	}
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*PSPCall)(nil)).Set("next_attempt_at = ?", s.Now()).
			Where("kind = ? AND object_id IN (?) AND status = ?", kind, bun.List(objectIDs), CallPending).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: wake psp calls: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, '')", PSPCallsChannel)
		}
		return err
	})
}

// WakeChecks is WakeCalls for reads (a devolução's or a payout's check)
// that a callback says have news: a read waiting is made due now; where
// the read is in flight, it may have asked the PSP before the news, so a
// read of its own is queued after it (as QueueCheck does for one object).
func (s *Store) WakeChecks(ctx context.Context, kind string, objectIDs []string) error {
	if len(objectIDs) == 0 {
		return nil
	}
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.Now()
		var woken []string
		err := tx.NewRaw(`UPDATE psp_calls SET next_attempt_at = ?
			WHERE kind = ? AND object_id IN (?) AND status = ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
			RETURNING object_id`, now, kind, bun.List(objectIDs), CallPending, now).Scan(ctx, &woken)
		if err != nil {
			return fmt.Errorf("store: wake psp checks: %w", err)
		}
		var inFlight []struct {
			AccountID *string `bun:"account_id"`
			ObjectID  string  `bun:"object_id"`
		}
		err = tx.NewRaw(`SELECT DISTINCT ON (object_id) account_id, object_id FROM psp_calls
			WHERE kind = ? AND object_id IN (?) AND status = ? AND lease_expires_at > ?`,
			kind, bun.List(objectIDs), CallPending, now).Scan(ctx, &inFlight)
		if err != nil {
			return fmt.Errorf("store: psp checks in flight: %w", err)
		}
		for _, c := range inFlight {
			if slices.Contains(woken, c.ObjectID) {
				continue // a read after the one in flight already waits, now due
			}
			if err := s.queueCall(ctx, tx, c.AccountID, kind, c.ObjectID, time.Time{}); err != nil {
				return err
			}
		}
		if len(woken) > 0 || len(inFlight) > 0 {
			_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, '')", PSPCallsChannel)
		}
		return err
	})
}

// QueuePixConfirmation asks the worker to confirm the transfer e2eid with
// the PSP (a callback named it); a transfer already queued or confirmed is
// left as it is. It reports whether it queued a new confirmation.
func (s *Store) QueuePixConfirmation(ctx context.Context, e2eid string) (bool, error) {
	now := s.Now()
	c := &PSPCall{ID: ids.New(PrefixPSPCall), Kind: CallPixConfirm, ObjectID: e2eid, Status: CallPending,
		NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
	var queued bool
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewInsert().Model(c).On("CONFLICT (object_id) WHERE kind = 'pix.confirm' DO NOTHING").Exec(ctx)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		if queued = n == 1; !queued {
			return nil
		}
		_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, '')", PSPCallsChannel)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: queue pix confirmation: %w", err)
	}
	return queued, nil
}

// ClaimPSPCalls leases up to limit due calls (FOR UPDATE SKIP LOCKED: any
// number of workers), counting the attempt.
func (s *Store) ClaimPSPCalls(ctx context.Context, now time.Time, limit int, lease time.Duration, token string) ([]PSPCall, error) {
	var calls []PSPCall
	err := s.db.NewRaw(`
		WITH due AS (
			SELECT id FROM psp_calls
			WHERE status = 'pending' AND next_attempt_at <= ?0 AND (lease_expires_at IS NULL OR lease_expires_at <= ?0)
			ORDER BY next_attempt_at, id
			LIMIT ?1
			FOR UPDATE SKIP LOCKED
		)
		UPDATE psp_calls c SET lease_token = ?2, lease_expires_at = ?3, attempts = c.attempts + 1, updated_at = ?0
		FROM due WHERE c.id = due.id
		RETURNING c.*`, now, limit, token, now.Add(lease)).Scan(ctx, &calls)
	if err != nil {
		return nil, fmt.Errorf("store: claim psp calls: %w", err)
	}
	return calls, nil
}

// CallOutcome is how an attempt at a call ended.
type CallOutcome struct {
	// Status is CallPending (try again at NextAttemptAt), CallSucceeded or CallFailed.
	Status        string
	NextAttemptAt time.Time
	Error         string
	// Request and Response are what was sent and answered, kept for the
	// dashboard's view of the PSP's steps.
	Request, Response json.RawMessage
}

// FinishPSPCall records an attempt's outcome while token still holds the
// call's lease, and reports whether it did.
func (s *Store) FinishPSPCall(ctx context.Context, id, token string, out CallOutcome) (bool, error) {
	now := s.Now()
	q := s.db.NewUpdate().Model((*PSPCall)(nil)).
		Set("status = ?", out.Status).Set("lease_token = NULL, lease_expires_at = NULL").Set("updated_at = ?", now).
		Where("id = ? AND lease_token = ?", id, token)
	if out.Status == CallPending {
		q = q.Set("next_attempt_at = ?", out.NextAttemptAt)
	} else {
		q = q.Set("completed_at = ?", now)
	}
	if out.Error != "" {
		q = q.Set("last_error = ?", out.Error)
	} else {
		q = q.Set("last_error = NULL")
	}
	if out.Request != nil {
		q = q.Set("request = ?", string(out.Request))
	}
	if out.Response != nil {
		q = q.Set("response = ?", string(out.Response))
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("store: finish psp call: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// CallsForObjects lists the calls about these objects, oldest first: the
// PSP steps a payment, refund or withdrawal went through.
func (s *Store) CallsForObjects(ctx context.Context, objectIDs []string) ([]PSPCall, error) {
	if len(objectIDs) == 0 {
		return nil, nil
	}
	var out []PSPCall
	err := s.idb(ctx).NewSelect().Model(&out).Where("object_id IN (?)", bun.List(objectIDs)).Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: psp calls: %w", err)
	}
	return out, nil
}

// Cursor is where the named walk stands (zero when it never ran).
func (s *Store) Cursor(ctx context.Context, name string) (time.Time, error) {
	var at time.Time
	err := s.db.NewRaw("SELECT position FROM psp_cursors WHERE name = ?", name).Scan(ctx, &at)
	if err != nil && !isNoRows(err) {
		return time.Time{}, fmt.Errorf("store: cursor %s: %w", name, err)
	}
	return at, nil
}

// AdvanceCursor moves the named walk to at (never back).
func (s *Store) AdvanceCursor(ctx context.Context, name string, at time.Time) error {
	_, err := s.db.NewRaw(`INSERT INTO psp_cursors AS c (name, position, updated_at) VALUES (?0, ?1, ?2)
		ON CONFLICT (name) DO UPDATE SET position = greatest(c.position, EXCLUDED.position), updated_at = EXCLUDED.updated_at`,
		name, at, s.Now()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: advance cursor %s: %w", name, err)
	}
	return nil
}

// ReleasePSPLeases gives back the leases a claim took under token, when the
// claim's answer was lost (the worker never saw the calls): they are due
// again at once, their attempt uncounted. It reports how many it released.
func (s *Store) ReleasePSPLeases(ctx context.Context, token string) (int, error) {
	return s.releaseLeases(ctx, "psp_calls", token)
}
