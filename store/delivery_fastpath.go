package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A success is the dispatcher's common case, and its bookkeeping is most of
// a delivery's database work. finishAndLeaseSQL records one in one
// statement: the attempt, the delivery marked succeeded while our lease
// holds, the end of the webhook's failure streak, and (when chaining) a lease
// on the webhook's next due delivery. Concurrent successes are sent together
// (see coalescer and pipelined): one round trip and one implicit transaction
// for the batch, each statement seeing the ones before it, so two never
// lease the same next delivery. synchronous_commit is relaxed for this
// transaction only, for the reason relaxCommit gives.
//
// Within a statement the CTEs share one snapshot, so the finished row still
// looks leased to the next-lease subquery and is never picked twice.
//
// The next lease starts its index walk after the finished delivery's own
// place in the queue ($22, $2): every finished delivery leaves a dead entry
// in webhook_deliveries_claim_idx until vacuum, so a walk from the queue's
// head would step over all of them, and draining a backlog of n would cost
// O(n²). What a chain leaves behind it (a delivery whose lease expired, one a
// concurrent walk skipped) is the claim query's, which always starts at the
// head.
const finishAndLeaseSQL = `
	WITH relax AS (
		SELECT set_config('synchronous_commit', 'off', true)
	), attempt AS (
		` + insertAttemptSQL + `
	), finished AS (
		UPDATE webhook_deliveries
		SET status = 'succeeded', lease_token = NULL, lease_expires_at = NULL, last_status_code = $17,
			last_error = NULL, updated_at = $16, completed_at = $16
		WHERE id = $2 AND lease_token = $18
		RETURNING id
	), healed AS (
		-- A success ends a failure streak; a webhook that was not failing is
		-- not written (nor locked) at all.
		UPDATE webhooks SET failing_since = NULL, failures_since = 0
		WHERE id = $3 AND EXISTS (SELECT 1 FROM finished) AND (failing_since IS NOT NULL OR failures_since <> 0)
	), leased AS (
		UPDATE webhook_deliveries d
		SET lease_token = $19, lease_expires_at = $20, attempts = d.attempts + 1, updated_at = $16
		WHERE $21::boolean AND EXISTS (SELECT 1 FROM finished) AND d.id = (
			SELECT n.id FROM webhook_deliveries n
			WHERE n.webhook_id = $3 AND n.status = 'pending' AND n.next_attempt_at <= $16
				AND (n.next_attempt_at, n.id) > ($22::timestamptz, $2::text)
				AND (n.lease_expires_at IS NULL OR n.lease_expires_at <= $16)
				AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = $3 AND w.enabled)
			ORDER BY n.next_attempt_at, n.id
			LIMIT 1
			FOR UPDATE SKIP LOCKED
		)
		RETURNING d.id, d.event_id, d.attempts, d.next_attempt_at
	)
	SELECT (SELECT count(*) FROM finished), (SELECT count(*) FROM relax),
		leased.id, leased.event_id, leased.attempts, leased.next_attempt_at, (SELECT updated_at FROM webhooks WHERE id = $3),
		e.account_id, e.livemode, e.type, e.object_id, e.data::text, e.created_at
	FROM (SELECT 1) one LEFT JOIN leased ON true LEFT JOIN events e ON e.id = leased.event_id`

// succeeded is one success to record; next, when set, asks for the
// webhook's next due delivery under a new lease.
type succeeded struct {
	delivery *Delivery
	token    string
	attempt  *DeliveryAttempt
	next     *ClaimParams
}

// finishedDelivery is what became of a success: whether its lease still
// held, and the next delivery leased for it (nil when none was due).
type finishedDelivery struct {
	held bool
	next *Delivery
}

type finishes = coalescer[succeeded, finishedDelivery]

func newFinishes(s *Store) *finishes {
	// Four batches in flight: with one webhook's eight workers waiting on
	// their finishes, fewer left the drain waiting on round trips (measured
	// in BENCHMARKS.md).
	return &finishes{maxInFlight: 4, maxBatch: 32, timeout: 10 * time.Second, serve: s.serveFinishes}
}

// finishSucceeded is FinishAndClaimNext's path for a success.
func (s *Store) finishSucceeded(ctx context.Context, d *Delivery, token string, a *DeliveryAttempt,
	next *ClaimParams,
) (bool, *Delivery, error) {
	res, err := s.finishes.do(ctx, succeeded{delivery: d, token: token, attempt: a, next: next})
	return res.held, res.next, err
}

// serveFinishes records a batch of successes, one statement each, in one
// round trip.
func (s *Store) serveFinishes(ctx context.Context, batch []succeeded) []outcome[finishedDelivery] {
	outs := make([]outcome[finishedDelivery], len(batch))
	fail := func(err error) []outcome[finishedDelivery] {
		for i := range outs {
			outs[i] = outcome[finishedDelivery]{err: fmt.Errorf("store: finish delivery: %w", err)}
		}
		return outs
	}
	stmts := make([]statement, len(batch))
	for i, b := range batch {
		stmts[i] = statement{sql: finishAndLeaseSQL, args: finishArgs(b)}
	}
	err := s.pipelined(ctx, stmts, func(i int, rows pgx.Rows) error {
		if !rows.Next() {
			return fmt.Errorf("finish returned no row")
		}
		var (
			held, relaxed    int
			nextID, eventID  *string
			attempts         *int
			nextDue          *time.Time
			webhookUpdatedAt *time.Time
			ev               struct {
				accountID, eventType, objectID, data *string
				livemode                             *bool
				createdAt                            *time.Time
			}
		)
		if err := rows.Scan(&held, &relaxed, &nextID, &eventID, &attempts, &nextDue, &webhookUpdatedAt,
			&ev.accountID, &ev.livemode, &ev.eventType, &ev.objectID, &ev.data, &ev.createdAt); err != nil {
			return err
		}
		out := &outs[i].out
		out.held = held == 1
		if !out.held || nextID == nil || ev.data == nil {
			return nil
		}
		d := batch[i].delivery
		out.next = &Delivery{ID: *nextID, WebhookID: d.WebhookID, EventID: *eventID, Attempts: *attempts,
			NextAttemptAt: *nextDue, Webhook: d.Webhook, Event: &Event{
				ID: *eventID, AccountID: *ev.accountID, Livemode: *ev.livemode, Type: *ev.eventType,
				ObjectID: *ev.objectID, Data: json.RawMessage(*ev.data), CreatedAt: *ev.createdAt,
			}}
		if webhookUpdatedAt == nil || !webhookUpdatedAt.Equal(d.Webhook.UpdatedAt) {
			// The webhook changed since it was read (a new URL, a rotated
			// secret): read again below, outside the batch.
			out.next.Webhook = nil
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	for i := range outs {
		next := outs[i].out.next
		if next == nil || next.Webhook != nil {
			continue
		}
		next.Webhook = new(Webhook)
		if err := s.queryInto(ctx, next.Webhook, `SELECT * FROM webhooks WHERE id = $1`, next.WebhookID); err != nil {
			// The next delivery stays leased and is attempted when its lease ends.
			outs[i].out.next = nil
			outs[i].err = fmt.Errorf("store: leased delivery's webhook: %w", err)
		}
	}
	return outs
}

// finishArgs are finishAndLeaseSQL's parameters for one success.
func finishArgs(b succeeded) []any {
	args := attemptArgs(b.attempt)
	chain, nextToken, nextExpiry := b.next != nil, "", time.Time{}
	if chain {
		nextToken, nextExpiry = b.next.Token, b.next.Now.Add(b.next.Lease)
	}
	return append(args, b.attempt.ResponseStatus, b.token, nextToken, nextExpiry, chain, b.delivery.NextAttemptAt)
}
