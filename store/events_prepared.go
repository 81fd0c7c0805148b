package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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
// of the event's account and mode subscribed to its type (a subaccount's
// platform's webhooks too: they hear their subaccounts), and NOTIFYs the
// dispatcher when it queued any (delivered by PostgreSQL at commit). A
// statement built on it ends by selecting from notify, which makes
// PostgreSQL run it. Every writer of events uses it: recordEvent, and a
// payment's creation, single and batch.
//
// A delivery's id is its event's delivery stem completed with the
// delivery's place among the event's deliveries (see ids.NewStem).
const outboxCTEs = `event AS (
		INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at, traceparent, tracestate, actor)
		SELECT event_id, account_id, livemode, type, object_id, data, created_at, traceparent, tracestate, actor FROM source
	), queued AS (
		INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
			status, next_attempt_at, created_at, updated_at, order_key)
		SELECT s.delivery_stem || substr('` + ids.Alphabet + `', row_number() OVER (PARTITION BY s.event_id ORDER BY w.id)::int, 1),
			s.event_id, w.id, w.account_id, w.livemode, s.type, 'pending', s.created_at, s.created_at, s.created_at,
			CASE WHEN w.ordered THEN w.id || ':' || s.object_id END
		FROM source s JOIN accounts a ON a.id = s.account_id
			JOIN webhooks w ON w.account_id IN (s.account_id, a.parent_account_id) AND w.livemode = s.livemode
			AND w.enabled AND s.type = ANY (w.events) AND (w.filter IS NULL OR w.id = ANY (s.passed))
		RETURNING 1
	), notify AS (
		SELECT pg_notify('` + DeliveriesChannel + `', '') FROM (SELECT count(*) AS n FROM queued) q WHERE q.n > 0
	), ` + rollupCTE

// rollupCTE appends a row to rollup_deltas (migration 034) for each event
// that moves the overview's figures: a charge created (with its payer),
// paid (its amount, fee, time to pay and payer), expired (a subscription's
// cycle whose attempts all failed, payment.failed, included) or canceled; a
// refund that succeeded; a dispute opened. FoldRollups moves them into
// overview_hours and customers; appending, rather than updating an
// account's row, keeps concurrent changes of one account apart.
const rollupCTE = `rolled AS (
		INSERT INTO rollup_deltas (account_id, livemode, hour, created, paid, gross_cents, fee_cents, expired, canceled,
			refunds, refunded_cents, disputes, disputed_cents, pay_bucket, document, name, email, charged_at)
		SELECT account_id, livemode, date_trunc('hour', created_at, 'UTC'),
			(type = '` + EventPaymentCreated + `')::int, (type = '` + EventPaymentPaid + `')::int,
			CASE WHEN type = '` + EventPaymentPaid + `' THEN coalesce((doc->>'amount_paid_cents')::bigint, (doc->>'amount_cents')::bigint, 0) ELSE 0 END,
			CASE WHEN type = '` + EventPaymentPaid + `' THEN coalesce((doc->>'fee_cents')::bigint, 0) ELSE 0 END,
			(type IN ('` + EventPaymentExpired + `', '` + EventPaymentFailed + `'))::int, (type = '` + EventPaymentCanceled + `')::int,
			(type = '` + EventRefundSucceeded + `')::int,
			CASE WHEN type = '` + EventRefundSucceeded + `' THEN coalesce((doc->>'amount_cents')::bigint, 0) ELSE 0 END,
			(type = '` + EventDisputeOpened + `')::int,
			CASE WHEN type = '` + EventDisputeOpened + `' THEN coalesce((doc->>'amount_cents')::bigint, 0) ELSE 0 END,
			CASE WHEN type = '` + EventPaymentPaid + `' THEN
				pay_time_bucket((doc->>'paid_at')::timestamptz - (doc->>'created_at')::timestamptz) END,
			payer->>'document', coalesce(payer->>'name', ''), coalesce(payer->>'email', ''),
			CASE WHEN payer IS NOT NULL THEN coalesce((doc->>'created_at')::timestamptz, created_at) END
		FROM (
			-- The snapshot parsed once (each operator on json parses it whole).
			SELECT account_id, livemode, type, created_at, doc,
				CASE WHEN type IN ('` + EventPaymentCreated + `', '` + EventPaymentPaid + `')
					AND coalesce(doc->'customer'->>'document', '') <> '' THEN doc->'customer' END AS payer
			FROM (SELECT account_id, livemode, type, created_at, data::jsonb AS doc FROM source
				WHERE type IN ('` + EventPaymentCreated + `', '` + EventPaymentPaid + `', '` + EventPaymentExpired + `',
					'` + EventPaymentFailed + `', '` + EventPaymentCanceled + `', '` + EventRefundSucceeded + `', '` + EventDisputeOpened + `')
				OFFSET 0) parsed
		) rolled_events
	)`

// An event has at most one delivery per webhook of its account and of its
// platform, and a delivery's place is one character of ids.Alphabet: this
// fails to compile when the cap outgrows it.
var _ [len(ids.Alphabet) - 2*MaxWebhooksPerAccount]struct{}

// recordEventSQL records one event: recordEvent's twelve parameters (the
// last, the filtered webhooks the event passed, comma-separated).
const recordEventSQL = `WITH source AS (
		SELECT $1::text AS event_id, $2::text AS account_id, $3::boolean AS livemode, $4::text AS type,
			$5::text AS object_id, $6::json AS data, $7::timestamptz AS created_at, $8::text AS delivery_stem,
			$9::text AS traceparent, $10::text AS actor, $11::text AS tracestate, string_to_array($12::text, ',') AS passed
	), ` + outboxCTEs + `
	SELECT count(*) FROM notify`

// recordEvent writes the outbox row for a state change inside tx, freezing
// the object's public representation, with its deliveries (see outboxCTEs).
func (s *Store) recordEvent(ctx context.Context, tx bun.Tx, eventType, accountID string, livemode bool,
	objectID string, object any, at time.Time,
) error {
	st, err := s.recordEventStatement(ctx, filtersIn(tx), eventType, accountID, livemode, objectID, object, at)
	if err != nil {
		return err
	}
	return execIn(ctx, tx, "record event", st)
}

// recordEventStatement is recordEvent's statement; read reads the
// account's filtered webhooks on a miss (filterReader).
func (s *Store) recordEventStatement(ctx context.Context, read filterReader, eventType, accountID string, livemode bool,
	objectID string, object any, at time.Time,
) (pg.Statement, error) {
	data, err := json.Marshal(object)
	if err != nil {
		return pg.Statement{}, fmt.Errorf("store: snapshot %s: %w", eventType, err)
	}
	passed, err := s.passedFilters(ctx, read, accountID, livemode, eventType, data)
	if err != nil {
		return pg.Statement{}, err
	}
	return pg.Statement{SQL: recordEventSQL, Args: []any{ids.New(ids.PrefixEvent), accountID, livemode,
		eventType, objectID, string(data), at, ids.NewStem(ids.PrefixDelivery), traceParent(ctx), actorOf(ctx), traceState(ctx), strings.Join(passed, ",")}}, nil
}

// recordEventsSQL records a batch of events: arrays of equal length, one
// element per event, in recordEvent's order.
const recordEventsSQL = `WITH source AS (
		SELECT event_id, account_id, livemode, type, object_id, data::json AS data, created_at, delivery_stem,
			$9::text AS traceparent, $10::text AS actor, $11::text AS tracestate, string_to_array(passed, ',') AS passed
		FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $12::text[])
			WITH ORDINALITY AS e(event_id, account_id, livemode, type, object_id, data, created_at, delivery_stem, passed, i)
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
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error { return s.recordEvents(ctx, tx, events) })
}

// recordEvents writes events inside tx in one statement (recordEventsSQL).
func (s *Store) recordEvents(ctx context.Context, tx bun.Tx, events []NewEvent) error {
	n := len(events)
	eventIDs, accounts, livemodes, types := make([]string, n), make([]string, n), make([]bool, n), make([]string, n)
	objectIDs, data, ats, stems, passed := make([]string, n), make([]string, n), make([]time.Time, n), make([]string, n), make([]string, n)
	for i, e := range events {
		eventIDs[i], accounts[i], livemodes[i], types[i] = ids.New(ids.PrefixEvent), e.Scope.AccountID, e.Scope.Livemode, e.Type
		objectIDs[i], data[i], ats[i], stems[i] = e.ObjectID, string(e.Data), e.At, ids.NewStem(ids.PrefixDelivery)
		ok, err := s.passedFilters(ctx, filtersIn(tx), e.Scope.AccountID, e.Scope.Livemode, e.Type, e.Data)
		if err != nil {
			return err
		}
		passed[i] = strings.Join(ok, ",")
	}
	_, err := tx.Tx.ExecContext(ctx, recordEventsSQL,
		pg.Prepared(eventIDs, accounts, livemodes, types, objectIDs, data, ats, stems, traceParent(ctx), actorOf(ctx), traceState(ctx), passed)...)
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

// traceState is the W3C tracestate of ctx's span for an event row, nil
// when it has none.
func traceState(ctx context.Context) *string {
	if ts := tracing.TraceState(ctx); ts != "" {
		return &ts
	}
	return nil
}

// recordPaymentEvent records a payment's state change.
func (s *Store) recordPaymentEvent(ctx context.Context, tx bun.Tx, eventType string, p *Payment) error {
	return s.recordEvent(ctx, tx, eventType, p.AccountID, p.Livemode, p.ID.String(), p, p.UpdatedAt)
}
