package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
	"payments/store/internal/pg"
	"payments/tracing"
)

// The outbox: every state change writes its events, and one delivery per
// subscribed webhook, in the statement and transaction that make the change.

// outboxCTEs is the outbox write, as CTEs that complete a statement whose
// CTE named source yields the events to write, one row each:
// (event_id, account_id, livemode, type, object_id, data, created_at,
// delivery_stem, traceparent, actor). It writes each event and one delivery per enabled webhook
// of the event's account and mode subscribed to its type, and NOTIFYs the
// dispatcher when it queued any (delivered by PostgreSQL at commit). A
// statement built on it ends by selecting from notify, which makes
// PostgreSQL run it. Every writer of events uses it: recordEvent, and a
// payment's creation, single and batch.
//
// A delivery's id is its event's delivery stem completed with the
// delivery's place among the event's deliveries (see ids.NewStem).
const outboxCTEs = `event AS (
		INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at, traceparent, actor)
		SELECT event_id, account_id, livemode, type, object_id, data, created_at, traceparent, actor FROM source
	), queued AS (
		INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
			status, next_attempt_at, created_at, updated_at)
		SELECT s.delivery_stem || substr('` + ids.Alphabet + `', row_number() OVER (PARTITION BY s.event_id ORDER BY w.id)::int, 1),
			s.event_id, w.id, w.account_id, w.livemode, s.type, 'pending', s.created_at, s.created_at, s.created_at
		FROM source s JOIN webhooks w ON w.account_id = s.account_id AND w.livemode = s.livemode
			AND w.enabled AND s.type = ANY (w.events)
		RETURNING 1
	), notify AS (
		SELECT pg_notify('` + DeliveriesChannel + `', '') FROM (SELECT count(*) AS n FROM queued) q WHERE q.n > 0
	), ` + rollupCTE

// rollupCTE adds the events that move the overview's figures to their
// hour's row of overview_hours (migration 034): a charge created, paid
// (its amount, fee and time to pay), expired or canceled, a refund that
// succeeded, a dispute opened. The shard is the connection's, so that all
// of one transaction's events share one row (no two rows taken in
// different orders by two transactions) while concurrent writers of one
// busy account spread over eight.
const rollupCTE = `rolled AS (
		INSERT INTO overview_hours AS o (account_id, livemode, hour, shard, created, paid, gross_cents, fee_cents,
			expired, canceled, refunds, refunded_cents, disputes, disputed_cents,
			pay_0, pay_1, pay_2, pay_3, pay_4, pay_5, pay_6, pay_7, pay_8, pay_9)
		SELECT account_id, livemode, date_trunc('hour', created_at, 'UTC'), pg_backend_pid() % 8,
			count(*) FILTER (WHERE type = '` + EventPaymentCreated + `'),
			count(*) FILTER (WHERE type = '` + EventPaymentPaid + `'),
			coalesce(sum(coalesce((data->>'amount_paid_cents')::bigint, (data->>'amount_cents')::bigint)) FILTER (WHERE type = '` + EventPaymentPaid + `'), 0),
			coalesce(sum((data->>'fee_cents')::bigint) FILTER (WHERE type = '` + EventPaymentPaid + `'), 0),
			count(*) FILTER (WHERE type = '` + EventPaymentExpired + `'),
			count(*) FILTER (WHERE type = '` + EventPaymentCanceled + `'),
			count(*) FILTER (WHERE type = '` + EventRefundSucceeded + `'),
			coalesce(sum((data->>'amount_cents')::bigint) FILTER (WHERE type = '` + EventRefundSucceeded + `'), 0),
			count(*) FILTER (WHERE type = '` + EventDisputeOpened + `'),
			coalesce(sum((data->>'amount_cents')::bigint) FILTER (WHERE type = '` + EventDisputeOpened + `'), 0),
			count(*) FILTER (WHERE bucket = 0), count(*) FILTER (WHERE bucket = 1), count(*) FILTER (WHERE bucket = 2),
			count(*) FILTER (WHERE bucket = 3), count(*) FILTER (WHERE bucket = 4), count(*) FILTER (WHERE bucket = 5),
			count(*) FILTER (WHERE bucket = 6), count(*) FILTER (WHERE bucket = 7), count(*) FILTER (WHERE bucket = 8),
			count(*) FILTER (WHERE bucket = 9)
		FROM (
			SELECT account_id, livemode, type, data, created_at,
				CASE WHEN type = '` + EventPaymentPaid + `' THEN
					pay_time_bucket((data->>'paid_at')::timestamptz - (data->>'created_at')::timestamptz) END AS bucket
			FROM source
			WHERE type IN ('` + EventPaymentCreated + `', '` + EventPaymentPaid + `', '` + EventPaymentExpired + `',
				'` + EventPaymentCanceled + `', '` + EventRefundSucceeded + `', '` + EventDisputeOpened + `')
		) rolled_events
		GROUP BY account_id, livemode, date_trunc('hour', created_at, 'UTC')
		ON CONFLICT (account_id, livemode, hour, shard) DO UPDATE SET
			created = o.created + excluded.created, paid = o.paid + excluded.paid,
			gross_cents = o.gross_cents + excluded.gross_cents, fee_cents = o.fee_cents + excluded.fee_cents,
			expired = o.expired + excluded.expired, canceled = o.canceled + excluded.canceled,
			refunds = o.refunds + excluded.refunds, refunded_cents = o.refunded_cents + excluded.refunded_cents,
			disputes = o.disputes + excluded.disputes, disputed_cents = o.disputed_cents + excluded.disputed_cents,
			pay_0 = o.pay_0 + excluded.pay_0, pay_1 = o.pay_1 + excluded.pay_1, pay_2 = o.pay_2 + excluded.pay_2,
			pay_3 = o.pay_3 + excluded.pay_3, pay_4 = o.pay_4 + excluded.pay_4, pay_5 = o.pay_5 + excluded.pay_5,
			pay_6 = o.pay_6 + excluded.pay_6, pay_7 = o.pay_7 + excluded.pay_7, pay_8 = o.pay_8 + excluded.pay_8,
			pay_9 = o.pay_9 + excluded.pay_9
	)`

// An event has at most one delivery per webhook of its account, and a
// delivery's place is one character of ids.Alphabet: this fails to compile
// when the cap outgrows it.
var _ [len(ids.Alphabet) - MaxWebhooksPerAccount]struct{}

// recordEventSQL records one event: recordEvent's ten parameters.
const recordEventSQL = `WITH source AS (
		SELECT $1::text AS event_id, $2::text AS account_id, $3::boolean AS livemode, $4::text AS type,
			$5::text AS object_id, $6::json AS data, $7::timestamptz AS created_at, $8::text AS delivery_stem,
			$9::text AS traceparent, $10::text AS actor
	), ` + outboxCTEs + `
	SELECT count(*) FROM notify`

// recordEvent writes the outbox row for a state change inside tx, freezing
// the object's public representation, with its deliveries (see outboxCTEs).
func (s *Store) recordEvent(ctx context.Context, tx bun.Tx, eventType, accountID string, livemode bool,
	objectID string, object any, at time.Time,
) error {
	st, err := recordEventStatement(ctx, eventType, accountID, livemode, objectID, object, at)
	if err != nil {
		return err
	}
	return execIn(ctx, tx, "record event", st)
}

// recordEventStatement is recordEvent's statement.
func recordEventStatement(ctx context.Context, eventType, accountID string, livemode bool,
	objectID string, object any, at time.Time,
) (pg.Statement, error) {
	data, err := json.Marshal(object)
	if err != nil {
		return pg.Statement{}, fmt.Errorf("store: snapshot %s: %w", eventType, err)
	}
	return pg.Statement{SQL: recordEventSQL, Args: []any{ids.New(ids.PrefixEvent), accountID, livemode,
		eventType, objectID, string(data), at, ids.NewStem(ids.PrefixDelivery), traceParent(ctx), actorOf(ctx)}}, nil
}

// recordEventsSQL records a batch of events: arrays of equal length, one
// element per event, in recordEvent's order.
const recordEventsSQL = `WITH source AS (
		SELECT event_id, account_id, livemode, type, object_id, data::json AS data, created_at, delivery_stem,
			$9::text AS traceparent, $10::text AS actor
		FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
			WITH ORDINALITY AS e(event_id, account_id, livemode, type, object_id, data, created_at, delivery_stem, i)
		ORDER BY i
	), ` + outboxCTEs + `
	SELECT count(*) FROM notify`

// NewEvent is an event of one object of Scope, its public representation
// frozen in Data, made at At.
type NewEvent struct {
	Scope    Scope
	Type     string
	ObjectID string
	Data     json.RawMessage
	At       time.Time
}

// RecordEvents writes events with their deliveries in one statement and
// transaction, apart from any state change: the load generator's backlog.
func (s *Store) RecordEvents(ctx context.Context, events []NewEvent) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error { return recordEvents(ctx, tx, events) })
}

// recordEvents writes events inside tx in one statement (recordEventsSQL).
func recordEvents(ctx context.Context, tx bun.Tx, events []NewEvent) error {
	n := len(events)
	eventIDs, accounts, livemodes, types := make([]string, n), make([]string, n), make([]bool, n), make([]string, n)
	objectIDs, data, ats, stems := make([]string, n), make([]string, n), make([]time.Time, n), make([]string, n)
	for i, e := range events {
		eventIDs[i], accounts[i], livemodes[i], types[i] = ids.New(ids.PrefixEvent), e.Scope.AccountID, e.Scope.Livemode, e.Type
		objectIDs[i], data[i], ats[i], stems[i] = e.ObjectID, string(e.Data), e.At, ids.NewStem(ids.PrefixDelivery)
	}
	_, err := tx.Tx.ExecContext(ctx, recordEventsSQL,
		pg.Prepared(eventIDs, accounts, livemodes, types, objectIDs, data, ats, stems, traceParent(ctx), actorOf(ctx))...)
	if err != nil {
		return fmt.Errorf("store: record events: %w", err)
	}
	return nil
}

// traceParent is the W3C traceparent of ctx's span for an event row, nil
// when traces are off.
func traceParent(ctx context.Context) *string {
	if tp := tracing.TraceParent(ctx); tp != "" {
		return &tp
	}
	return nil
}

// recordPaymentEvent records a payment's state change.
func (s *Store) recordPaymentEvent(ctx context.Context, tx bun.Tx, eventType string, p *Payment) error {
	return s.recordEvent(ctx, tx, eventType, p.AccountID, p.Livemode, p.ID.String(), p, p.UpdatedAt)
}
