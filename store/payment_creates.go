package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// paymentCreates coalesces concurrent payment creations (see coalescer):
// a batch is one statement in one round trip. Besides the round trips and
// statement start-ups it saves, it keeps the number of creations
// PostgreSQL runs at once small: at 32 concurrent requests, 32 backends
// inserting into the same indexes spent more on contending with each other
// than on inserting, and a waiter's turn was random (database/sql hands a
// freed connection to any of its waiters), which set the tail latency. The
// coalescer's queue is first come, first served.
type paymentCreates = coalescer[paymentCreate, struct{}]

func newPaymentCreates(s *Store) *paymentCreates {
	return &paymentCreates{maxInFlight: 2, maxBatch: 32, timeout: 10 * time.Second, serve: s.serveCreates}
}

// paymentCreate is one creation: the payment and its columns that are
// rendered JSON.
type paymentCreate struct {
	p                  *Payment
	metadata, snapshot string  // the metadata column; the payment.created event's data
	customer           *string // the customer column, when there is one
	eventID            string
}

func newPaymentCreate(p *Payment) paymentCreate {
	if p.Metadata == nil {
		p.Metadata = map[string]string{}
	}
	// The columns hold exactly what the API shows (same encoder).
	c := paymentCreate{p: p, metadata: string(appendJSONStringMap(nil, p.Metadata)),
		snapshot: string(p.appendJSON(make([]byte, 0, 1024))), eventID: NewID(PrefixEvent)}
	if p.Customer != nil {
		customer := string(appendCustomerJSON(nil, p.Customer))
		c.customer = &customer
	}
	return c
}

// args are createPaymentSQL's arguments, for creating the payment alone.
func (c paymentCreate) args() []any {
	p := c.p
	args := []any{pgUUID(p.ID), p.AccountID, p.Livemode, p.Status, p.AmountCents, p.Currency, p.PaymentMethod,
		p.Description, p.ExternalID, c.customer, c.metadata, p.CorrelationID, p.FeeCents, p.BRCode,
		p.QRCodeURL, p.CheckoutURL, p.CreatedAt, p.UpdatedAt, p.ExpiresAt}
	return append(args, eventArgs(c.eventID, p.AccountID, p.Livemode, EventPaymentCreated, p.ID.String(),
		[]byte(c.snapshot), p.UpdatedAt)...)
}

// createPaymentsSQL creates a batch of payments, each with its
// payment.created event and the event's deliveries, in one statement: the
// payments as arrays of equal length, numbered from 1 by ORDINALITY. A
// payment whose external_id is taken (before the batch, or by an earlier
// one in it: they are inserted in order) is skipped with its event, and the
// statement answers, for each number, whether it was created. Any other
// refusal fails the whole statement; serveCreates then creates them one by
// one, so that it fails only its own.
const createPaymentsSQL = `
	WITH c AS MATERIALIZED (
		SELECT * FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::text[], $5::bigint[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::text[], $15::text[],
			$16::text[], $17::timestamptz[], $18::timestamptz[], $19::timestamptz[], $20::text[], $21::text[])
			WITH ORDINALITY AS c(id, account_id, livemode, status, amount_cents, currency, payment_method,
				description, external_id, customer, metadata, correlation_id, fee_cents, br_code, qr_code_url,
				checkout_url, created_at, updated_at, expires_at, event_id, data, i)
	), payment AS (
		INSERT INTO payments (id, account_id, livemode, status, amount_cents,
			currency, payment_method, description, external_id, customer, metadata, correlation_id, fee_cents,
			br_code, qr_code_url, checkout_url, created_at, updated_at, expires_at)
		SELECT id, account_id, livemode, status, amount_cents, currency, payment_method, description, external_id,
			customer::jsonb, metadata::jsonb, correlation_id, fee_cents, br_code, qr_code_url, checkout_url,
			created_at, updated_at, expires_at
		FROM c ORDER BY i
		ON CONFLICT (account_id, livemode, external_id) WHERE external_id IS NOT NULL DO NOTHING
		RETURNING id
	), event AS (
		INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at)
		SELECT c.event_id, c.account_id, c.livemode, $22::text, c.id::text, c.data::json, c.updated_at
		FROM c JOIN payment USING (id)
		ORDER BY c.i
		RETURNING id, account_id, livemode, type, created_at
	), queued AS (
		INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
			status, next_attempt_at, created_at, updated_at)
		SELECT 'whd_' || replace(gen_random_uuid()::text, '-', ''), e.id, w.id, w.account_id, w.livemode, e.type,
			'pending', e.created_at, e.created_at, e.created_at
		FROM event e JOIN webhooks w ON w.account_id = e.account_id AND w.livemode = e.livemode
			AND w.enabled AND e.type = ANY (w.events)
		RETURNING 1
	), notify AS (
		SELECT pg_notify($23, '') FROM (SELECT count(*) AS n FROM queued) q WHERE q.n > 0
	)
	SELECT c.i, payment.id IS NOT NULL, (SELECT count(*) FROM notify)
	FROM c LEFT JOIN payment USING (id)`

// createSettingsSQL precedes createPaymentsSQL in its round trip, for that
// transaction only (see keyProbePlan).
const createSettingsSQL = `SELECT ` + keyProbePlan

// serveCreates creates a batch in one statement; when that statement fails
// as a whole, it creates each payment with its own statement and
// transaction (createOneByOne), so that a refusal fails only its own
// creation. A creation alone goes that way at once.
func (s *Store) serveCreates(ctx context.Context, batch []paymentCreate) []outcome[struct{}] {
	if len(batch) == 1 {
		// A creation alone is cheaper as its own plain statement.
		return s.createOneByOne(ctx, batch)
	}
	outs := make([]outcome[struct{}], len(batch))
	created, err := s.createBatch(ctx, batch)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		for i, ok := range created {
			if !ok {
				outs[i].err = &ConflictError{Constraint: "payments_external_id_key",
					err: errors.New("the payment's external_id is taken")}
			}
		}
		return outs
	case !errors.As(err, &pgErr):
		// The round trip itself failed: nothing is known to be created.
		for i := range outs {
			outs[i].err = err
		}
		return outs
	}
	return s.createOneByOne(ctx, batch)
}

// createOneByOne creates each payment with its own statement and
// transaction (createPaymentSQL), all in one round trip.
func (s *Store) createOneByOne(ctx context.Context, batch []paymentCreate) []outcome[struct{}] {
	alone := make([]statement, len(batch))
	for i, c := range batch {
		alone[i] = statement{sql: createPaymentSQL, args: c.args()}
	}
	errs, err := s.separately(ctx, alone)
	outs := make([]outcome[struct{}], len(batch))
	for i := range outs {
		if err != nil {
			outs[i].err = err
		} else {
			outs[i].err = errs[i]
		}
	}
	return outs
}

// createBatch runs createPaymentsSQL: all of the batch's payments are
// created, except those whose external_id is taken (created[i] false), or
// none is.
func (s *Store) createBatch(ctx context.Context, batch []paymentCreate) (created []bool, err error) {
	created = make([]bool, len(batch))
	stmts := []statement{{sql: createSettingsSQL}, {sql: createPaymentsSQL, args: createPaymentsArgs(batch)}}
	err = s.pipelined(ctx, stmts, func(stmt int, rows pgx.Rows) error {
		if stmt < len(stmts)-1 {
			return nil
		}
		var ordinal, notified int64
		var ok bool
		return eachAnswer(rows, len(batch), &ordinal, []any{&ordinal, &ok, &notified}, func(i int) { created[i] = ok })
	})
	return created, err
}

// createPaymentsArgs are createPaymentsSQL's parameters: one array per
// column, one element per payment.
func createPaymentsArgs(batch []paymentCreate) []any {
	n := len(batch)
	texts := func() []string { return make([]string, n) }
	nullables := func() []*string { return make([]*string, n) }
	times := func() []time.Time { return make([]time.Time, n) }
	ids, livemodes, amounts, fees := make([]pgtype.UUID, n), make([]bool, n), make([]int64, n), make([]int64, n)
	accounts, statuses, currencies, methods, correlations := texts(), texts(), texts(), texts(), texts()
	metadata, brCodes, qrURLs, checkoutURLs, eventIDs, data := texts(), texts(), texts(), texts(), texts(), texts()
	descriptions, externalIDs, customers := nullables(), nullables(), nullables()
	created, updated, expires := times(), times(), times()
	for i, c := range batch {
		p := c.p
		ids[i], accounts[i], livemodes[i], statuses[i] = pgUUID(p.ID), p.AccountID, p.Livemode, p.Status
		amounts[i], currencies[i], methods[i] = p.AmountCents, p.Currency, p.PaymentMethod
		descriptions[i], externalIDs[i], customers[i], metadata[i] = p.Description, p.ExternalID, c.customer, c.metadata
		correlations[i], fees[i], brCodes[i], qrURLs[i], checkoutURLs[i] = p.CorrelationID, p.FeeCents, p.BRCode, p.QRCodeURL, p.CheckoutURL
		created[i], updated[i], expires[i] = p.CreatedAt, p.UpdatedAt, p.ExpiresAt
		eventIDs[i], data[i] = c.eventID, c.snapshot
	}
	return []any{ids, accounts, livemodes, statuses, amounts, currencies, methods, descriptions, externalIDs,
		customers, metadata, correlations, fees, brCodes, qrURLs, checkoutURLs, created, updated, expires,
		eventIDs, data, EventPaymentCreated, DeliveriesChannel}
}
