package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// A success is the dispatcher's common case, and its bookkeeping is most of
// a delivery's database work. finishBatchSQL records a batch of concurrent
// successes (see coalescer) in one statement: their attempts, each delivery
// marked succeeded while its own lease holds, the end of each webhook's
// failure streak, and (for those chaining) a lease on each one's webhook's
// next due delivery. One statement for the batch instead of one per
// success: a drain's PostgreSQL profile had a seventh of its CPU in starting
// the executor for each success's statement, and pgx a ninth of the
// dispatcher's in encoding each one's parameters. The successes come as
// arrays of equal length, one element each, numbered from 1 by ORDINALITY;
// the statement answers one row per success, led by its number.
//
// Each webhook's next deliveries are picked by one walk of the claim index
// (the lateral subquery: as many as that webhook's chaining successes, each
// once, SKIP LOCKED past what others hold) and handed out in due order by
// row number. The batch's own deliveries are never picked: the statement
// updates them itself, and in the snapshot its CTEs share they are still
// pending (and due again, if a lease ran out before its success came back).
//
// The walk starts after the earliest finished delivery's own place in the
// queue (after_due, after_id): every finished delivery leaves a dead entry in
// webhook_deliveries_claim_idx until vacuum, so a walk from the queue's head
// would step over all of them, and draining a backlog of n would cost O(n²).
// What a chain leaves behind it (a delivery whose lease expired, one a
// concurrent walk skipped) is the claim query's, which always starts at the
// head.
const finishBatchSQL = `
	WITH f AS MATERIALIZED (
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
			$8::text[], $9::text[], $10::int[], $11::text[], $12::bytea[], $13::int[], $14::text[], $15::text[],
			$16::timestamptz[], $17::text[], $18::text[], $19::timestamptz[], $20::boolean[], $21::timestamptz[])
			WITH ORDINALITY AS f(attempt_id, delivery_id, webhook_id, event_id, event_type, attempt, request_url,
				request_headers, request_body, response_status, response_headers, response_body, duration_ms,
				error_class, error_message, at, token, next_token, next_expiry, chain, due, i)
	), attempt AS (
		INSERT INTO delivery_attempts (id, delivery_id, webhook_id, event_id, event_type, attempt, request_url,
			request_headers, request_body, response_status, response_headers, response_body, duration_ms,
			error_class, error_message, created_at)
		SELECT attempt_id, delivery_id, webhook_id, event_id, event_type, attempt, request_url,
			request_headers::jsonb, request_body, response_status, response_headers::jsonb, response_body,
			duration_ms, error_class, error_message, at
		FROM f
	), finished AS (
		UPDATE webhook_deliveries d
		SET status = 'succeeded', lease_token = NULL, lease_expires_at = NULL, last_status_code = f.response_status,
			last_error = NULL, updated_at = f.at, completed_at = f.at
		FROM f
		WHERE d.id = f.delivery_id AND d.lease_token = f.token
		RETURNING f.i
	), healed AS (
		-- A success ends a failure streak; a webhook that was not failing is
		-- not written (nor locked) at all.
		UPDATE webhooks w SET failing_since = NULL, failures_since = 0
		WHERE w.id IN (SELECT f.webhook_id FROM f JOIN finished USING (i))
			AND (w.failing_since IS NOT NULL OR w.failures_since <> 0)
	), chaining AS (
		SELECT f.i, f.webhook_id, f.delivery_id, f.next_token, f.next_expiry, f.at, f.due,
			row_number() OVER (PARTITION BY f.webhook_id ORDER BY f.i) AS rn
		FROM f JOIN finished USING (i)
		WHERE f.chain
	), wanted AS (
		SELECT webhook_id, count(*) AS k, min(at) AS now,
			(array_agg(due ORDER BY due, delivery_id))[1] AS after_due,
			(array_agg(delivery_id ORDER BY due, delivery_id))[1] AS after_id
		FROM chaining
		GROUP BY webhook_id
	), picked AS (
		SELECT w.webhook_id, n.id, row_number() OVER (PARTITION BY w.webhook_id ORDER BY n.next_attempt_at, n.id) AS rn
		FROM wanted w CROSS JOIN LATERAL (
			SELECT n.id, n.next_attempt_at FROM webhook_deliveries n
			WHERE n.webhook_id = w.webhook_id AND n.status = 'pending' AND n.next_attempt_at <= w.now
				AND (n.next_attempt_at, n.id) > (w.after_due, w.after_id)
				AND (n.lease_expires_at IS NULL OR n.lease_expires_at <= w.now)
				AND n.id <> ALL ($2::text[])
				AND EXISTS (SELECT 1 FROM webhooks x WHERE x.id = w.webhook_id AND x.enabled)
			ORDER BY n.next_attempt_at, n.id
			LIMIT w.k
			FOR UPDATE SKIP LOCKED
		) n
	), leased AS (
		UPDATE webhook_deliveries d
		SET lease_token = c.next_token, lease_expires_at = c.next_expiry, attempts = d.attempts + 1, updated_at = c.at
		FROM picked p JOIN chaining c USING (webhook_id, rn)
		WHERE d.id = p.id
		RETURNING c.i, d.id, d.event_id, d.attempts, d.next_attempt_at
	)
	SELECT f.i, finished.i IS NOT NULL, leased.id, leased.event_id, leased.attempts, leased.next_attempt_at,
		(SELECT updated_at FROM webhooks WHERE id = f.webhook_id),
		e.account_id, e.livemode, e.type, e.object_id, e.data::text, e.created_at
	FROM f LEFT JOIN finished USING (i) LEFT JOIN leased USING (i) LEFT JOIN events e ON e.id = leased.event_id`

// finishSettingsSQL precedes finishBatchSQL in its round trip and holds for
// that transaction only: its commit does not wait for the WAL flush (see
// relaxCommit), and the batch runs on a key-probe generic plan (see
// keyProbePlan).
const finishSettingsSQL = `SELECT set_config('synchronous_commit', 'off', true), ` + keyProbePlan

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
	// Two batches in flight: one batch is one statement, whose start-up
	// costs more than its rows, so bigger batches cost less per success;
	// one in flight cost less still but left the machine a third idle, and
	// would let one batch waiting on a lock hold up every webhook's
	// successes (measured in BENCHMARKS.md).
	return &finishes{maxInFlight: 2, maxBatch: 32, timeout: 10 * time.Second, serve: s.serveFinishes}
}

// finishSucceeded is FinishAndClaimNext's path for a success.
func (s *Store) finishSucceeded(ctx context.Context, d *Delivery, token string, a *DeliveryAttempt,
	next *ClaimParams,
) (bool, *Delivery, error) {
	res, err := s.finishes.do(ctx, succeeded{delivery: d, token: token, attempt: a, next: next})
	return res.held, res.next, err
}

// serveFinishes records a batch of successes in one statement and one
// round trip.
func (s *Store) serveFinishes(ctx context.Context, batch []succeeded) []outcome[finishedDelivery] {
	outs := make([]outcome[finishedDelivery], len(batch))
	stmts := []statement{{sql: finishSettingsSQL}, {sql: finishBatchSQL, args: finishBatchArgs(batch)}}
	err := s.pipelined(ctx, stmts, func(stmt int, rows pgx.Rows) error {
		if stmt < len(stmts)-1 {
			return nil
		}
		var (
			ordinal          int64
			held             bool
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
		dest := []any{&ordinal, &held, &nextID, &eventID, &attempts, &nextDue, &webhookUpdatedAt,
			&ev.accountID, &ev.livemode, &ev.eventType, &ev.objectID, &ev.data, &ev.createdAt}
		return eachAnswer(rows, len(batch), &ordinal, dest, func(i int) {
			out := &outs[i].out
			out.held = held
			if !held || nextID == nil || ev.data == nil {
				return
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
		})
	})
	if err != nil {
		for i := range outs {
			outs[i].err = fmt.Errorf("store: finish delivery: %w", err)
		}
		return outs
	}
	// Next deliveries whose webhook changed get it read again, all in one
	// query. One whose webhook is gone (or unreadable) stays leased and is
	// attempted when its lease ends.
	var stale []string
	for _, o := range outs {
		if next := o.out.next; next != nil && next.Webhook == nil && !slices.Contains(stale, next.WebhookID) {
			stale = append(stale, next.WebhookID)
		}
	}
	if len(stale) == 0 {
		return outs
	}
	hooks, err := s.webhooksByID(ctx, stale)
	for i := range outs {
		next := outs[i].out.next
		if next == nil || next.Webhook != nil {
			continue
		}
		if err == nil {
			if next.Webhook = webhookIn(hooks, next.WebhookID); next.Webhook != nil {
				continue
			}
		}
		outs[i].out.next = nil
		outs[i].err = fmt.Errorf("store: leased delivery's webhook: %w", cmp.Or(err, sql.ErrNoRows))
	}
	return outs
}

// finishBatchArgs are finishBatchSQL's parameters: one array per column,
// one element per success.
func finishBatchArgs(batch []succeeded) []any {
	n := len(batch)
	texts := func() []string { return make([]string, n) }
	nullables := func() []*string { return make([]*string, n) }
	times := func() []time.Time { return make([]time.Time, n) }
	attemptIDs, deliveryIDs, webhookIDs, eventIDs, eventTypes := texts(), texts(), texts(), texts(), texts()
	requestURLs, requestBodies, tokens, nextTokens := texts(), texts(), texts(), texts()
	requestHeaders, responseHeaders, errorClasses, errorMessages := nullables(), nullables(), nullables(), nullables()
	attemptNos, durations, statuses := make([]int32, n), make([]int32, n), make([]*int32, n)
	bodies, chains := make([][]byte, n), make([]bool, n)
	ats, nextExpiries, dues := times(), times(), times()
	for i, b := range batch {
		a := b.attempt
		attemptIDs[i], deliveryIDs[i], webhookIDs[i] = a.ID, b.delivery.ID, a.WebhookID
		eventIDs[i], eventTypes[i] = a.EventID, a.EventType
		requestURLs[i], requestBodies[i], tokens[i] = a.RequestURL, a.RequestBody, b.token
		requestHeaders[i] = headersJSON(a.RequestHeaders, appendJSONStringMap)
		responseHeaders[i] = headersJSON(a.ResponseHeaders, appendJSONStringsMap)
		errorClasses[i], errorMessages[i] = a.ErrorClass, a.ErrorMessage
		attemptNos[i], durations[i] = int32(a.Attempt), int32(a.DurationMS)
		if a.ResponseStatus != nil {
			status := int32(*a.ResponseStatus)
			statuses[i] = &status
		}
		bodies[i], ats[i], dues[i] = a.ResponseBody, a.CreatedAt, b.delivery.NextAttemptAt
		if b.next != nil {
			chains[i], nextTokens[i], nextExpiries[i] = true, b.next.Token, b.next.Now.Add(b.next.Lease)
		}
	}
	return []any{attemptIDs, deliveryIDs, webhookIDs, eventIDs, eventTypes, attemptNos, requestURLs,
		requestHeaders, requestBodies, statuses, responseHeaders, bodies, durations, errorClasses, errorMessages,
		ats, tokens, nextTokens, nextExpiries, chains, dues}
}
