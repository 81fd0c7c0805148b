package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// finishAndLeaseSQL is the dispatcher's common case in one statement, so one
// round trip and one implicit transaction: record the attempt, mark the
// delivery succeeded while our lease holds, end the webhook's failure streak,
// and (when chaining) lease the webhook's next due delivery. The CTEs share
// one snapshot, so the finished row still looks leased to the next-lease
// subquery and is never picked twice. synchronous_commit is relaxed for this
// transaction only, for the reason relaxCommit gives.
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

// finishSucceeded is FinishAndClaimNext's path for a success: one prepared
// statement, which also ends the webhook's failure streak if it had one and
// returns the next delivery's event (its webhook is read again only if it
// changed).
func (s *Store) finishSucceeded(ctx context.Context, d *Delivery, token string, out DeliveryOutcome,
	a *DeliveryAttempt, next *ClaimParams,
) (bool, *Delivery, error) {
	args, err := attemptArgs(a)
	if err != nil {
		return false, nil, err
	}
	chain, nextToken, nextExpiry := next != nil, "", time.Time{}
	if chain {
		nextToken, nextExpiry = next.Token, next.Now.Add(next.Lease)
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
	args = append(args, out.StatusCode, token, nextToken, nextExpiry, chain, d.NextAttemptAt)
	err = s.hotRow(ctx, finishAndLeaseSQL, args,
		&held, &relaxed, &nextID, &eventID, &attempts, &nextDue, &webhookUpdatedAt,
		&ev.accountID, &ev.livemode, &ev.eventType, &ev.objectID, &ev.data, &ev.createdAt)
	if err != nil {
		return false, nil, fmt.Errorf("store: finish delivery: %w", err)
	}
	if held == 0 || nextID == nil || ev.data == nil {
		return held == 1, nil, nil
	}
	following := &Delivery{ID: *nextID, WebhookID: d.WebhookID, EventID: *eventID, Attempts: *attempts, NextAttemptAt: *nextDue,
		Webhook: d.Webhook, Event: &Event{
			ID: *eventID, AccountID: *ev.accountID, Livemode: *ev.livemode, Type: *ev.eventType,
			ObjectID: *ev.objectID, Data: json.RawMessage(*ev.data), CreatedAt: *ev.createdAt,
		}}
	if webhookUpdatedAt == nil || !webhookUpdatedAt.Equal(d.Webhook.UpdatedAt) {
		following.Webhook = new(Webhook)
		if err := s.queryInto(ctx, s.db.DB, following.Webhook, `SELECT * FROM webhooks WHERE id = $1`, d.WebhookID); err != nil {
			return true, nil, fmt.Errorf("store: leased delivery's webhook: %w", err)
		}
	}
	return true, following, nil
}
