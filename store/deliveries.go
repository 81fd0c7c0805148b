package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// Delivery is one event queued for one webhook. Its attempts are DeliveryAttempts.
type Delivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID             string     `bun:"id,pk"`
	EventID        string     `bun:"event_id"`
	WebhookID      string     `bun:"webhook_id"`
	AccountID      string     `bun:"account_id"`
	Livemode       bool       `bun:"livemode"`
	EventType      string     `bun:"event_type"`
	Status         string     `bun:"status"`
	Attempts       int        `bun:"attempts"`
	NextAttemptAt  time.Time  `bun:"next_attempt_at"`
	LeaseToken     *string    `bun:"lease_token"`
	LeaseExpiresAt *time.Time `bun:"lease_expires_at"`
	LastStatusCode *int       `bun:"last_status_code"`
	LastError      *string    `bun:"last_error"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
	CompletedAt    *time.Time `bun:"completed_at"`

	Webhook      *Webhook          `bun:"rel:belongs-to,join:webhook_id=id"`
	Event        *Event            `bun:"rel:belongs-to,join:event_id=id"`
	AttemptsList []DeliveryAttempt `bun:"rel:has-many,join:id=delivery_id"`
}

// DeliveryAttempt is one HTTP request to a receiver and what came back.
type DeliveryAttempt struct {
	bun.BaseModel `bun:"table:delivery_attempts"`

	ID              string              `bun:"id,pk"`
	DeliveryID      *string             `bun:"delivery_id"`
	WebhookID       string              `bun:"webhook_id"`
	EventID         string              `bun:"event_id"`
	EventType       string              `bun:"event_type"`
	Attempt         int                 `bun:"attempt"`
	RequestURL      string              `bun:"request_url"`
	RequestHeaders  map[string]string   `bun:"request_headers,type:jsonb"`
	RequestBody     string              `bun:"request_body"`
	ResponseStatus  *int                `bun:"response_status"`
	ResponseHeaders map[string][]string `bun:"response_headers,type:jsonb"`
	ResponseBody    []byte              `bun:"response_body"`
	DurationMS      int                 `bun:"duration_ms"`
	ErrorClass      *string             `bun:"error_class"`
	ErrorMessage    *string             `bun:"error_message"`
	CreatedAt       time.Time           `bun:"created_at"`
}

// ClaimParams bound one claim.
type ClaimParams struct {
	Now   time.Time
	Limit int
	// Lease is how long the claim holds each delivery; an attempt must end well within it.
	Lease time.Duration
	// PerWebhook caps the leased deliveries of one webhook, so one slow
	// receiver cannot occupy every worker.
	PerWebhook int
	Token      string
}

// claimSQL leases due deliveries and returns them with their events. Each
// enabled webhook gets room for PerWebhook ($2) leases less those it holds;
// its earliest due deliveries fill the room (one probe of
// webhook_deliveries_claim_idx per webhook), and the earliest of all those
// are taken, up to Limit ($3). It is one prepared statement, planned once
// per connection: the dispatcher claims on every event's notification, and
// planning this query each time was most of a claim's cost. Its commit is
// relaxed, for the reason relaxCommit gives.
const claimSQL = `
	WITH relax AS (
		SELECT set_config('synchronous_commit', 'off', true)
	), room AS (
		SELECT w.id AS webhook_id, $2 - (
			SELECT count(*) FROM webhook_deliveries l
			WHERE l.webhook_id = w.id AND l.lease_token IS NOT NULL AND l.lease_expires_at > $1
		) AS n
		FROM webhooks w WHERE w.enabled
	), picked AS (
		SELECT due.id FROM room
		CROSS JOIN LATERAL (
			SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
			WHERE d.webhook_id = room.webhook_id AND d.status = 'pending' AND d.next_attempt_at <= $1
				AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1)
			ORDER BY d.next_attempt_at, d.id
			LIMIT greatest(room.n, 0)
			FOR UPDATE SKIP LOCKED
		) due
		ORDER BY due.next_attempt_at, due.id
		LIMIT $3
	), leased AS (
		UPDATE webhook_deliveries d
		SET lease_token = $4, lease_expires_at = $5, attempts = d.attempts + 1, updated_at = $1
		FROM picked WHERE d.id = picked.id
		RETURNING d.*
	)
	SELECT (SELECT count(*) FROM relax),
		l.id, l.event_id, l.webhook_id, l.account_id, l.livemode, l.event_type, l.status, l.attempts,
		l.next_attempt_at, l.lease_token, l.lease_expires_at, l.last_status_code, l.last_error,
		l.created_at, l.updated_at, l.completed_at,
		e.account_id, e.livemode, e.type, e.object_id, e.data::text, e.created_at
	FROM leased l JOIN events e ON e.id = l.event_id
	ORDER BY l.next_attempt_at, l.id`

// ClaimDeliveries leases up to Limit due deliveries of enabled webhooks,
// counting the attempt, and returns them with their webhook and event. The
// claim is one short statement (FOR UPDATE SKIP LOCKED); the HTTP happens
// outside any transaction, and FinishDelivery only lands while the lease holds.
func (s *Store) ClaimDeliveries(ctx context.Context, p ClaimParams) ([]Delivery, error) {
	var out []Delivery
	err := s.withPgx(ctx, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, claimSQL, prepared(p.Now, p.PerWebhook, p.Limit, p.Token, p.Now.Add(p.Lease))...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				relaxed int
				d       Delivery
				e       Event
				data    string
			)
			if err := rows.Scan(&relaxed,
				&d.ID, &d.EventID, &d.WebhookID, &d.AccountID, &d.Livemode, &d.EventType, &d.Status, &d.Attempts,
				&d.NextAttemptAt, &d.LeaseToken, &d.LeaseExpiresAt, &d.LastStatusCode, &d.LastError,
				&d.CreatedAt, &d.UpdatedAt, &d.CompletedAt,
				&e.AccountID, &e.Livemode, &e.Type, &e.ObjectID, &data, &e.CreatedAt); err != nil {
				return err
			}
			e.ID, e.Data = d.EventID, json.RawMessage(data)
			d.Event = &e
			out = append(out, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim deliveries: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if out, err = s.withWebhooks(ctx, out); err != nil {
		return nil, fmt.Errorf("store: claimed deliveries' webhooks: %w", err)
	}
	return out, nil
}

// withWebhooks gives claimed deliveries their webhooks, read once each in one
// prepared query. A delivery whose webhook was deleted since the claim (its
// deliveries went with it) is dropped.
func (s *Store) withWebhooks(ctx context.Context, deliveries []Delivery) ([]Delivery, error) {
	ids := make([]string, 0, 4)
	for _, d := range deliveries {
		if !slices.Contains(ids, d.WebhookID) {
			ids = append(ids, d.WebhookID)
		}
	}
	hooks, err := s.webhooksByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	kept := deliveries[:0]
	for _, d := range deliveries {
		if d.Webhook = webhookIn(hooks, d.WebhookID); d.Webhook != nil {
			kept = append(kept, d)
		}
	}
	return kept, nil
}

// webhooksByID reads the webhooks with these ids in one prepared query;
// an id no webhook has is left out.
func (s *Store) webhooksByID(ctx context.Context, ids []string) ([]Webhook, error) {
	rows, err := s.db.DB.QueryContext(ctx, `SELECT * FROM webhooks WHERE id = ANY($1)`, prepared(ids)...)
	if err != nil {
		return nil, err
	}
	var hooks []Webhook
	if err := s.db.ScanRows(ctx, rows, &hooks); err != nil {
		return nil, err
	}
	return hooks, nil
}

// webhookIn is the webhook of hooks with this id, or nil.
func webhookIn(hooks []Webhook, id string) *Webhook {
	for i := range hooks {
		if hooks[i].ID == id {
			return &hooks[i]
		}
	}
	return nil
}

// DeliveryOutcome is what the dispatcher decided after an attempt.
type DeliveryOutcome struct {
	Status        string // pending (retry), succeeded or failed
	NextAttemptAt time.Time
	StatusCode    *int
	Error         *string
	// Success resets the webhook's failure streak; otherwise the attempt extends it.
	Success bool
	// DisableReason, when set, disables the webhook (a 410 Gone).
	DisableReason string
	// AutoDisableAfter and AutoDisableFailures disable a webhook whose
	// failure streak is at least that old and that long.
	AutoDisableAfter    time.Duration
	AutoDisableFailures int
}

// FinishAndClaimNext records the attempt and applies the outcome atomically.
// The delivery changes only while token still holds its lease (a lease that
// expired mid-attempt was claimed again by someone else); the attempt is
// recorded either way, because the request was sent. It reports whether the
// lease still held.
//
// After a success, when next is set, it also leases the same webhook's
// earliest due delivery and returns it (nil when none is due): the webhook's
// leases stay as many as before, so its in-flight cap holds, and a busy
// webhook's queue flows without a round through the claim query per
// delivery. After anything else the worker goes back to the pool, so a
// failing receiver gets no more attempts than its claims give it.
func (s *Store) FinishAndClaimNext(ctx context.Context, d *Delivery, token string, out DeliveryOutcome,
	attempt *DeliveryAttempt, next *ClaimParams,
) (bool, *Delivery, error) {
	if out.Success && out.Status == DeliverySucceeded && out.DisableReason == "" {
		return s.finishSucceeded(ctx, d, token, attempt, next)
	}
	held, err := s.finishUnsuccessful(ctx, d, token, out, attempt)
	return held, nil, err
}

// insertAttemptSQL records an attempt; attemptArgs gives its parameters.
const insertAttemptSQL = `INSERT INTO delivery_attempts (id, delivery_id, webhook_id, event_id, event_type,
			attempt, request_url, request_headers, request_body, response_status, response_headers, response_body,
			duration_ms, error_class, error_message, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`

func attemptArgs(a *DeliveryAttempt) []any {
	return []any{a.ID, a.DeliveryID, a.WebhookID, a.EventID, a.EventType, a.Attempt, a.RequestURL,
		headersJSON(a.RequestHeaders, appendJSONStringMap), a.RequestBody, a.ResponseStatus,
		headersJSON(a.ResponseHeaders, appendJSONStringsMap), a.ResponseBody, a.DurationMS, a.ErrorClass,
		a.ErrorMessage, a.CreatedAt}
}

// finishUnsuccessful is FinishAndClaimNext for a retry, a failure or a
// disable: the outcome and the webhook's health in one transaction.
func (s *Store) finishUnsuccessful(ctx context.Context, d *Delivery, token string, out DeliveryOutcome,
	attempt *DeliveryAttempt,
) (bool, error) {
	args := attemptArgs(attempt)
	var held bool
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, btx bun.Tx) error {
		tx := btx.Tx
		if err := relaxCommit(ctx, btx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, insertAttemptSQL, prepared(args...)...); err != nil {
			return fmt.Errorf("store: record attempt: %w", err)
		}
		now := attempt.CreatedAt
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries
			SET status = $1::text, next_attempt_at = $2, lease_token = NULL, lease_expires_at = NULL,
				last_status_code = $3, last_error = $4, updated_at = $5,
				completed_at = CASE WHEN $1::text <> 'pending' THEN $5::timestamptz ELSE completed_at END
			WHERE id = $6 AND lease_token = $7`,
			prepared(out.Status, out.NextAttemptAt, out.StatusCode, out.Error, now, d.ID, token)...)
		if err != nil {
			return fmt.Errorf("store: finish delivery: %w", err)
		}
		n, _ := res.RowsAffected()
		if held = n == 1; !held {
			return nil
		}
		return s.applyWebhookHealth(ctx, btx, d.WebhookID, now, out)
	})
	return held, err
}

// headersJSON renders an attempt's headers for their jsonb column with
// appendMap, or nil (NULL) when there are none. Every attempt writes two
// header maps; encoding/json's reflection was a twentieth of the
// dispatcher's CPU.
func headersJSON[M ~map[string]V, V any](m M, appendMap func([]byte, M) []byte) *string {
	if m == nil {
		return nil
	}
	s := string(appendMap(make([]byte, 0, 256), m))
	return &s
}

// relaxCommit lets tx commit without waiting for its WAL flush. Only the
// dispatcher's bookkeeping uses it: a crash can lose the last fraction of a
// second of leases and outcomes, and losing one means the delivery is made
// again, which at-least-once delivery allows. Payments and events never do.
func relaxCommit(ctx context.Context, tx bun.Tx) error {
	if _, err := tx.ExecContext(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
		return fmt.Errorf("store: relax commit: %w", err)
	}
	return nil
}

func (s *Store) applyWebhookHealth(ctx context.Context, tx bun.Tx, webhookID string, now time.Time, out DeliveryOutcome) error {
	q := tx.NewUpdate().Model((*Webhook)(nil)).Where("id = ?", webhookID)
	switch {
	case out.DisableReason != "":
		q = q.Set("enabled = false, disabled_reason = ?, updated_at = ?", out.DisableReason, now)
	case out.Success:
		// Only a webhook coming back from failures is written: successes,
		// the common case, neither lock nor rewrite the webhook row.
		q = q.Set("failing_since = NULL, failures_since = 0").Where("failing_since IS NOT NULL OR failures_since <> 0")
	default:
		q = q.Set("failing_since = coalesce(failing_since, ?)", now).
			Set("failures_since = failures_since + 1").
			Set(`enabled = enabled AND NOT (coalesce(failing_since, ?0) <= ?1 AND failures_since + 1 >= ?2)`,
				now, now.Add(-out.AutoDisableAfter), out.AutoDisableFailures).
			Set(`disabled_reason = CASE WHEN enabled AND coalesce(failing_since, ?0) <= ?1 AND failures_since + 1 >= ?2
				THEN ?3 ELSE disabled_reason END`, now, now.Add(-out.AutoDisableAfter), out.AutoDisableFailures, DisabledFailing)
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("store: webhook health: %w", err)
	}
	return nil
}

// RecordAttempt stores an attempt outside the queue (a "send test").
func (s *Store) RecordAttempt(ctx context.Context, a *DeliveryAttempt) error {
	if _, err := s.idb(ctx).NewInsert().Model(a).Exec(ctx); err != nil {
		return fmt.Errorf("store: record attempt: %w", err)
	}
	return nil
}

// DeliveryListParams pages a webhook's deliveries, newest first.
type DeliveryListParams struct {
	Scope         Scope
	WebhookID     string
	Status        string
	Limit         int
	StartingAfter string
}

// Deliveries lists a webhook's deliveries with their attempts.
func (s *Store) Deliveries(ctx context.Context, p DeliveryListParams) ([]Delivery, bool, error) {
	var out []Delivery
	q := s.idb(ctx).NewSelect().Model(&out).
		Relation("AttemptsList", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("created_at", "id") }).
		Where("delivery.webhook_id = ? AND delivery.account_id = ? AND delivery.livemode = ?", p.WebhookID, p.Scope.AccountID, p.Scope.Livemode)
	if p.Status != "" {
		q = q.Where("delivery.status = ?", p.Status)
	}
	if p.StartingAfter != "" {
		q = q.Where("(delivery.created_at, delivery.id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = ?)", p.StartingAfter)
	}
	if err := q.Order("delivery.created_at DESC", "delivery.id DESC").Limit(int64(p.Limit) + 1).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("store: deliveries: %w", err)
	}
	hasMore := len(out) > p.Limit
	if hasMore {
		out = out[:p.Limit]
	}
	return out, hasMore, nil
}

// Delivery returns one of a webhook's deliveries with its attempts.
func (s *Store) Delivery(ctx context.Context, scope Scope, webhookID, id string) (*Delivery, error) {
	d := new(Delivery)
	err := s.idb(ctx).NewSelect().Model(d).
		Relation("AttemptsList", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("created_at", "id") }).
		Where("delivery.id = ? AND delivery.webhook_id = ? AND delivery.account_id = ? AND delivery.livemode = ?",
			id, webhookID, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: delivery: %w", translate(err))
	}
	return d, nil
}

// ResendDelivery queues a delivery for an immediate new attempt, whatever
// its status. A delivery being attempted right now is left alone.
func (s *Store) ResendDelivery(ctx context.Context, scope Scope, webhookID, id string) (*Delivery, error) {
	if _, err := s.Delivery(ctx, scope, webhookID, id); err != nil {
		return nil, err
	}
	now := s.Now()
	_, err := s.idb(ctx).NewRaw(`
		WITH requeued AS (
			UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?0, completed_at = NULL, updated_at = ?0
			WHERE id = ?1 AND (lease_expires_at IS NULL OR lease_expires_at <= ?0)
			RETURNING 1
		)
		SELECT pg_notify(?2, '') FROM requeued`, now, id, DeliveriesChannel).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: resend delivery: %w", err)
	}
	return s.Delivery(ctx, scope, webhookID, id)
}

// ResendFailedSince queues every failed delivery of the webhook created at
// or after since, and returns how many.
func (s *Store) ResendFailedSince(ctx context.Context, scope Scope, webhookID string, since time.Time) (int, error) {
	if _, err := s.Webhook(ctx, scope, webhookID); err != nil {
		return 0, err
	}
	now := s.Now()
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		err := tx.NewRaw(`
			WITH requeued AS (
				UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?0, completed_at = NULL, updated_at = ?0
				WHERE webhook_id = ?1 AND status = 'failed' AND created_at >= ?2
				RETURNING 1
			)
			SELECT count(*) FROM requeued`, now, webhookID, since).Scan(ctx, &n)
		if err != nil || n == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, '')", DeliveriesChannel)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: resend failed deliveries: %w", err)
	}
	return n, nil
}

// TestAttempts lists a webhook's "send test" attempts, newest first.
func (s *Store) TestAttempts(ctx context.Context, scope Scope, webhookID string, limit int) ([]DeliveryAttempt, error) {
	if _, err := s.Webhook(ctx, scope, webhookID); err != nil {
		return nil, err
	}
	var out []DeliveryAttempt
	err := s.idb(ctx).NewSelect().Model(&out).Where("webhook_id = ? AND delivery_id IS NULL", webhookID).
		Order("created_at DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: test attempts: %w", err)
	}
	return out, nil
}

// PruneAttempts deletes attempts older than before, at most limit at a time.
func (s *Store) PruneAttempts(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := s.db.NewDelete().Model((*DeliveryAttempt)(nil)).
		Where("id IN (SELECT id FROM delivery_attempts WHERE created_at < ? LIMIT ?)", before, limit).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: prune attempts: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// StuckDeliveries counts pending deliveries whose lease expired more than
// grace ago: a healthy dispatcher leaves none.
func (s *Store) StuckDeliveries(ctx context.Context, now time.Time, grace time.Duration) (int, error) {
	n, err := s.db.NewSelect().Model((*Delivery)(nil)).
		Where("status = 'pending' AND lease_token IS NOT NULL AND lease_expires_at < ?", now.Add(-grace)).Count(ctx)
	return int(n), err
}

// LastDeliveries returns each webhook's most recently updated delivery.
func (s *Store) LastDeliveries(ctx context.Context, webhookIDs []string) (map[string]Delivery, error) {
	out := map[string]Delivery{}
	if len(webhookIDs) == 0 {
		return out, nil
	}
	var rows []Delivery
	err := s.idb(ctx).NewSelect().Model(&rows).DistinctOn("webhook_id").
		Where("webhook_id IN (?)", bun.In(webhookIDs)).OrderExpr("webhook_id, updated_at DESC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: last deliveries: %w", err)
	}
	for _, d := range rows {
		out[d.WebhookID] = d
	}
	return out, nil
}

// DeliveriesForEvents lists the deliveries of the given events, oldest first.
func (s *Store) DeliveriesForEvents(ctx context.Context, scope Scope, eventIDs []string) ([]Delivery, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	var out []Delivery
	err := s.idb(ctx).NewSelect().Model(&out).
		Where("event_id IN (?) AND account_id = ? AND livemode = ?", bun.In(eventIDs), scope.AccountID, scope.Livemode).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: deliveries for events: %w", err)
	}
	return out, nil
}
