package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"

	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store/ids"
	"payments/store/internal/pg"
	"payments/store/jsonw"
)

// A payment's hot statements (see doc.go): its creation, its reads and the
// changes of its status, single and batch side by side.

// paymentColumns are what paymentRow reads, in its order.
const paymentColumns = `id, account_id, livemode, status, amount_cents, currency, payment_method, description,
	external_id, customer, metadata, correlation_id, fee_cents, br_code, qr_code_url, checkout_url,
	created_at, updated_at, expires_at, paid_at, canceled_at, expired_at, refunded_at, charge_state,
	amount_refunded_cents, fee_refunded_cents, due_terms, amount_paid_cents, subscription_id, cycle, paid_on, pix_qr_code, payment_link,
	splits`

// paymentRow scans paymentColumns without reflection.
type paymentRow struct {
	p                  Payment
	id                 pgtype.UUID
	customer, metadata []byte
	dueTerms, cycle    []byte
	splits             []byte
}

func (r *paymentRow) dest() []any {
	p := &r.p
	return []any{&r.id, &p.AccountID, &p.Livemode, &p.Status, &p.AmountCents, &p.Currency,
		&p.PaymentMethod, &p.Description, &p.ExternalID, &r.customer, &r.metadata, &p.CorrelationID, &p.FeeCents,
		&p.BRCode, &p.QRCodeURL, &p.CheckoutURL, &p.CreatedAt, &p.UpdatedAt, &p.ExpiresAt, &p.PaidAt,
		&p.CanceledAt, &p.ExpiredAt, &p.RefundedAt, &p.ChargeState, &p.AmountRefundedCents, &p.FeeRefundedCents,
		&r.dueTerms, &p.AmountPaidCents, &p.SubscriptionID, &r.cycle, &p.PaidOn, &p.PixQRCode, &p.PaymentLink, &r.splits}
}

// payment decodes the JSON columns and returns the payment.
func (r *paymentRow) payment() (*Payment, error) {
	p := r.p
	p.ID = r.id.Bytes
	if r.customer != nil {
		p.Customer = new(Customer)
		if err := json.Unmarshal(r.customer, p.Customer); err != nil {
			return nil, fmt.Errorf("store: payment customer: %w", err)
		}
	}
	metadata, err := jsonw.DecodeStringMap(r.metadata)
	if err != nil {
		return nil, fmt.Errorf("store: payment metadata: %w", err)
	}
	p.Metadata = metadata
	if r.dueTerms != nil {
		p.DueTerms = new(cobv.Terms)
		if err := json.Unmarshal(r.dueTerms, p.DueTerms); err != nil {
			return nil, fmt.Errorf("store: payment due terms: %w", err)
		}
		due := p.DueTerms.Due().Time()
		p.DueDate = &due
	}
	if r.cycle != nil {
		p.Cycle = new(Cycle)
		if err := json.Unmarshal(r.cycle, p.Cycle); err != nil {
			return nil, fmt.Errorf("store: payment cycle: %w", err)
		}
	}
	if r.splits != nil {
		if err := json.Unmarshal(r.splits, &p.Splits); err != nil {
			return nil, fmt.Errorf("store: payment splits: %w", err)
		}
	}
	return &p, nil
}

// scanPayment reads one payment row selected as paymentColumns; no row is
// ErrNotFound.
func (s *Store) scanPayment(ctx context.Context, query string, args ...any) (*Payment, error) {
	var r paymentRow
	if err := s.hotRow(ctx, query, args, r.dest()...); err != nil {
		return nil, fmt.Errorf("store: payment: %w", translate(err))
	}
	return r.payment()
}

// Payment finds a payment by ref: a UUID equal to a payment's id wins,
// otherwise ref is taken as an external_id. Other scopes' payments are ErrNotFound.
func (s *Store) Payment(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	// The API's hottest read. By id it goes through paymentReads (below),
	// unless a request's transaction is open; the external_id is tried only
	// when no payment of the scope has that id.
	if id, ok := ParsePaymentID(ref); ok {
		var p *Payment
		var err error
		if _, inTx := ambientTx(ctx); inTx {
			p, err = s.scanPayment(ctx, paymentByIDSQL, pg.UUID(id), scope.AccountID, scope.Livemode)
		} else {
			p, err = s.reads.Do(ctx, paymentRead{id: id, scope: scope})
		}
		if !errors.Is(err, ErrNotFound) {
			return p, err
		}
	}
	return s.scanPayment(ctx, `SELECT `+paymentColumns+` FROM payments
		WHERE external_id = $1 AND account_id = $2 AND livemode = $3`, ref, scope.AccountID, scope.Livemode)
}

// paymentReads coalesces concurrent reads of payments by id (see
// pg.Coalescer): a batch is one statement, one index probe per read. Each
// read still sees the database as of its own request: nothing is cached.
type paymentReads = pg.Coalescer[paymentRead, *Payment]

type paymentRead struct {
	id    uuid.UUID
	scope Scope
}

func newPaymentReads(s *Store) *paymentReads {
	// Two batches in flight keep both cores' worth of backends busy; more
	// would only shrink the batches.
	return &paymentReads{MaxInFlight: 2, MaxBatch: 64, Timeout: 10 * time.Second, Serve: s.servePaymentReads}
}

const paymentByIDSQL = `SELECT ` + paymentColumns + ` FROM payments WHERE id = $1 AND account_id = $2 AND livemode = $3`

// paymentsByIDSQL reads a batch: the reads' ids and scopes as three arrays
// of equal length, each found row tagged with its read's ordinal (from 1).
// One execution for the batch costs PostgreSQL a fraction of one per read:
// what a small read spends is mostly the statement, not the row. The
// lateral LIMIT keeps every plan a primary-key probe per read, whatever the
// table's statistics say.
const paymentsByIDSQL = `SELECT q.i, p.*
	FROM unnest($1::uuid[], $2::text[], $3::boolean[]) WITH ORDINALITY AS q(read_id, read_account, read_livemode, i)
	CROSS JOIN LATERAL (SELECT ` + paymentColumns + ` FROM payments WHERE id = q.read_id LIMIT 1) p
	WHERE p.account_id = q.read_account AND p.livemode = q.read_livemode`

// servePaymentReads answers each read: its payment, or ErrNotFound when no
// payment of its scope has the id.
func (s *Store) servePaymentReads(ctx context.Context, batch []paymentRead) []pg.Outcome[*Payment] {
	outs := make([]pg.Outcome[*Payment], len(batch))
	readIDs := make([]pgtype.UUID, len(batch))
	accounts := make([]string, len(batch))
	livemodes := make([]bool, len(batch))
	for i, r := range batch {
		readIDs[i], accounts[i], livemodes[i] = pg.UUID(r.id), r.scope.AccountID, r.scope.Livemode
	}
	var row paymentRow
	var ordinal int64 = 1
	// A read alone is one statement with a plain plan; a batch is one
	// statement for all its reads, which leads its rows with their ordinals.
	stmts := []pg.Statement{{SQL: paymentByIDSQL, Args: []any{readIDs[0], accounts[0], livemodes[0]}}}
	dest := row.dest()
	if len(batch) > 1 {
		stmts = []pg.Statement{{SQL: pg.GenericPlanSQL}, {SQL: paymentsByIDSQL, Args: []any{readIDs, accounts, livemodes}}}
		dest = append([]any{&ordinal}, dest...)
	}
	err := pg.Pipelined(ctx, s.db.DB, stmts, func(stmt int, rows pgx.Rows) error {
		if stmt < len(stmts)-1 {
			return nil
		}
		// Unlike pg.EachAnswer, a read may find no row: that read is not found.
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if ordinal < 1 || ordinal > int64(len(outs)) {
				return fmt.Errorf("read ordinal %d outside the batch of %d", ordinal, len(outs))
			}
			outs[ordinal-1].Out, outs[ordinal-1].Err = row.payment()
		}
		return nil
	})
	for i := range outs {
		switch {
		case err != nil:
			outs[i] = pg.Outcome[*Payment]{Err: fmt.Errorf("store: payment: %w", err)}
		case outs[i].Out == nil && outs[i].Err == nil:
			outs[i].Err = fmt.Errorf("store: payment %s: %w", batch[i].id, ErrNotFound)
		}
	}
	return outs
}

// CreatePayment stores a payment BuildPayment made, with its
// payment.created event and the event's deliveries, atomically (one
// statement). A taken external_id is a ConflictError.
func (s *Store) CreatePayment(ctx context.Context, p *Payment) error {
	c, err := s.newRequestedCreate(ctx, s.filtersFor(ctx), p)
	if err != nil {
		return err
	}
	// The API's hottest write. Outside a request's idempotency transaction,
	// concurrent creations share statements (paymentCreates).
	if _, ambient := ambientTx(ctx); ambient {
		// In a request's idempotency transaction, a savepoint keeps a
		// refusal (a taken external_id) from aborting the whole transaction.
		err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.Tx.ExecContext(ctx, createPaymentSQL, pg.Prepared(c.args()...)...)
			return err
		})
	} else {
		_, err = s.creates.Do(ctx, c)
	}
	if err != nil {
		return fmt.Errorf("store: create payment: %w", translate(err))
	}
	p.createdJSON = c.snapshot
	return nil
}

// newRequestedCreate is the creation of p as ctx's request asks for it:
// its trace, who asked, its audit row's changes, and the filtered
// webhooks its event passes (read on a miss with read: filterReader).
func (s *Store) newRequestedCreate(ctx context.Context, read filterReader, p *Payment) (paymentCreate, error) {
	c := newPaymentCreate(p)
	passed, err := s.passedFilters(ctx, read, p.AccountID, p.Livemode, EventPaymentCreated, []byte(c.snapshot))
	if err != nil {
		return c, err
	}
	c.passed = strings.Join(passed, ",")
	c.traceparent, c.tracestate, c.actor = traceParent(ctx), traceState(ctx), actorOf(ctx)
	changes := jsonw.AppendString(append(make([]byte, 0, 64), `{"status":[null,`...), p.Status)
	changes = strconv.AppendInt(append(changes, `],"amount_cents":[null,`...), p.AmountCents, 10)
	c.who = auditJSON(ctx, append(changes, "]}"...))
	return c, nil
}

// paymentInsertColumns are the columns a new payment's row is written with,
// in paymentCreate.args' order.
const paymentInsertColumns = `id, account_id, livemode, status, amount_cents, currency, payment_method, description,
	external_id, customer, metadata, correlation_id, fee_cents, br_code, qr_code_url, checkout_url,
	created_at, updated_at, expires_at, due_date, due_terms, splits`

// insertPaymentSQL writes a payment's row alone ($1..$22, paymentCreate.args).
const insertPaymentSQL = `INSERT INTO payments (` + paymentInsertColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20::date, $21::jsonb, $22::jsonb)`

// createPaymentSQL creates one payment with its event and the event's
// deliveries: paymentCreate.args are its parameters.
const createPaymentSQL = `WITH payment AS (
		` + insertPaymentSQL + `
		RETURNING id
	), source AS (
		SELECT $23::text AS event_id, $2::text AS account_id, $3::boolean AS livemode, '` + EventPaymentCreated + `'::text AS type,
			$1::uuid::text AS object_id, $24::json AS data, $18::timestamptz AS created_at, $25::text AS delivery_stem,
			$26::text AS traceparent, $27::text AS actor, $28::jsonb AS who, $29::text AS tracestate,
			string_to_array($30::text, ',') AS passed
		FROM payment
	), ` + auditCTEStart + `'` + EventPaymentCreated + `'` + auditCTEEnd + `, ` + outboxCTEs + `
	SELECT count(*) FROM notify`

// PaymentRowInsert is the statement that writes p's row alone, as every
// creation writes it, and its arguments: the load generator's ceiling
// issues it directly.
func PaymentRowInsert(p *Payment) (string, []any) {
	return insertPaymentSQL, newPaymentCreate(p).args()[:22]
}

// paymentCreates coalesces concurrent payment creations (see
// pg.Coalescer): a batch is one statement in one round trip. Besides the
// round trips and statement start-ups it saves, it keeps the number of
// creations PostgreSQL runs at once small: at 32 concurrent requests, 32
// backends inserting into the same indexes spent more on contending with
// each other than on inserting, and a waiter's turn was random
// (database/sql hands a freed connection to any of its waiters), which set
// the tail latency. The coalescer's queue is first come, first served.
type paymentCreates = pg.Coalescer[paymentCreate, struct{}]

func newPaymentCreates(s *Store) *paymentCreates {
	return &paymentCreates{MaxInFlight: 2, MaxBatch: 32, Timeout: 10 * time.Second, Serve: s.serveCreates}
}

// paymentCreate is one creation: the payment and its columns that are
// rendered JSON, and the ids of its event and the event's deliveries.
type paymentCreate struct {
	p                  *Payment
	metadata, snapshot string  // the metadata column; the payment.created event's data
	customer           *string // the customer column, when there is one
	dueDate, dueTerms  *string // a due-date charge's columns
	splits             *string // a split charge's column
	eventID, stem      string
	traceparent        *string // the request's span, for the event (nil: traces off)
	tracestate         *string // and its vendors' state (nil: none)
	passed             string  // the filtered webhooks its event passed, comma-separated
	actor              string  // who asked, for the event
	who                string  // who asked, for the audit row (auditJSON; "": the service itself)
}

// systemWho is the audit row's who of a creation no one asked for.
const systemWho = `{"name":"","door":"system","ip":null,"user_agent":"","request_id":"","changes":{}}`

// whoJSON is c.who, or the service's own.
func (c paymentCreate) whoJSON() string {
	if c.who == "" {
		return systemWho
	}
	return c.who
}

func newPaymentCreate(p *Payment) paymentCreate {
	if p.Metadata == nil {
		p.Metadata = map[string]string{}
	}
	// The columns hold exactly what the API shows (same encoder).
	c := paymentCreate{p: p, metadata: string(jsonw.AppendStringMap(nil, p.Metadata)),
		snapshot: string(p.appendJSON(make([]byte, 0, 1024))), eventID: ids.New(ids.PrefixEvent),
		stem: ids.NewStem(ids.PrefixDelivery)}
	if p.Customer != nil {
		customer := string(appendCustomerJSON(nil, p.Customer))
		c.customer = &customer
	}
	if p.DueTerms != nil {
		terms, _ := json.Marshal(p.DueTerms)
		date, rendered := p.DueTerms.DueDate, string(terms)
		c.dueDate, c.dueTerms = &date, &rendered
	}
	if len(p.Splits) > 0 {
		rendered := string(appendSplitsColumn(make([]byte, 0, 96*len(p.Splits)), p.Splits))
		c.splits = &rendered
	}
	return c
}

// args are createPaymentSQL's arguments, for creating the payment alone.
func (c paymentCreate) args() []any {
	p := c.p
	return []any{pg.UUID(p.ID), p.AccountID, p.Livemode, p.Status, p.AmountCents, p.Currency, p.PaymentMethod,
		p.Description, p.ExternalID, c.customer, c.metadata, p.CorrelationID, p.FeeCents, p.BRCode,
		p.QRCodeURL, p.CheckoutURL, p.CreatedAt, p.UpdatedAt, p.ExpiresAt, c.dueDate, c.dueTerms, c.splits,
		c.eventID, c.snapshot, c.stem, c.traceparent, c.actor, c.whoJSON(), c.tracestate, c.passed}
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
			$16::text[], $17::timestamptz[], $18::timestamptz[], $19::timestamptz[], $20::text[], $21::text[], $22::text[],
			$23::text[], $24::text[], $25::text[], $26::date[], $27::text[], $28::text[], $29::text[], $30::text[])
			WITH ORDINALITY AS c(id, account_id, livemode, status, amount_cents, currency, payment_method,
				description, external_id, customer, metadata, correlation_id, fee_cents, br_code, qr_code_url,
				checkout_url, created_at, updated_at, expires_at, event_id, data, delivery_stem, traceparent, actor, who,
				due_date, due_terms, splits, tracestate, passed, i)
	), payment AS (
		INSERT INTO payments (` + paymentInsertColumns + `)
		SELECT id, account_id, livemode, status, amount_cents, currency, payment_method, description, external_id,
			customer::jsonb, metadata::jsonb, correlation_id, fee_cents, br_code, qr_code_url, checkout_url,
			created_at, updated_at, expires_at, due_date, due_terms::jsonb, splits::jsonb
		FROM c ORDER BY i
		ON CONFLICT (account_id, livemode, external_id) WHERE external_id IS NOT NULL DO NOTHING
		RETURNING id
	), source AS (
		SELECT c.event_id, c.account_id, c.livemode, '` + EventPaymentCreated + `'::text AS type, c.id::text AS object_id,
			c.data::json AS data, c.updated_at AS created_at, c.delivery_stem, c.traceparent, c.actor, c.who::jsonb AS who,
			c.tracestate, string_to_array(c.passed, ',') AS passed
		FROM c JOIN payment USING (id)
		ORDER BY c.i
	), ` + auditCTEStart + `'` + EventPaymentCreated + `'` + auditCTEEnd + `, ` + outboxCTEs + `
	SELECT c.i, payment.id IS NOT NULL, (SELECT count(*) FROM notify)
	FROM c LEFT JOIN payment USING (id)`

// serveCreates creates a batch in one statement; when that statement fails
// as a whole, it creates each payment with its own statement and
// transaction (createOneByOne), so that a refusal fails only its own
// creation. A creation alone goes that way at once.
func (s *Store) serveCreates(ctx context.Context, batch []paymentCreate) []pg.Outcome[struct{}] {
	if len(batch) == 1 {
		// A creation alone is cheaper as its own plain statement.
		return s.createOneByOne(ctx, batch)
	}
	outs := make([]pg.Outcome[struct{}], len(batch))
	created, err := s.createBatch(ctx, batch)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		for i, ok := range created {
			if !ok {
				outs[i].Err = &ConflictError{Constraint: "payments_external_id_key",
					err: errors.New("the payment's external_id is taken")}
			}
		}
		return outs
	case !errors.As(err, &pgErr):
		// The round trip itself failed: nothing is known to be created.
		for i := range outs {
			outs[i].Err = err
		}
		return outs
	}
	return s.createOneByOne(ctx, batch)
}

// createOneByOne creates each payment with its own statement and
// transaction (createPaymentSQL), all in one round trip.
func (s *Store) createOneByOne(ctx context.Context, batch []paymentCreate) []pg.Outcome[struct{}] {
	alone := make([]pg.Statement, len(batch))
	for i, c := range batch {
		alone[i] = pg.Statement{SQL: createPaymentSQL, Args: c.args()}
	}
	errs, err := pg.Separately(ctx, s.db.DB, alone)
	outs := make([]pg.Outcome[struct{}], len(batch))
	for i := range outs {
		if err != nil {
			outs[i].Err = err
		} else {
			outs[i].Err = errs[i]
		}
	}
	return outs
}

// createBatch runs createPaymentsSQL: all of the batch's payments are
// created, except those whose external_id is taken (created[i] false), or
// none is.
func (s *Store) createBatch(ctx context.Context, batch []paymentCreate) (created []bool, err error) {
	created = make([]bool, len(batch))
	stmts := []pg.Statement{{SQL: pg.KeyProbePlanSQL}, {SQL: createPaymentsSQL, Args: createPaymentsArgs(batch)}}
	err = pg.Pipelined(ctx, s.db.DB, stmts, func(stmt int, rows pgx.Rows) error {
		if stmt < len(stmts)-1 {
			return nil
		}
		var ordinal, notified int64
		var ok bool
		return pg.EachAnswer(rows, len(batch), &ordinal, []any{&ordinal, &ok, &notified}, func(i int) { created[i] = ok })
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
	paymentIDs, livemodes, amounts, fees := make([]pgtype.UUID, n), make([]bool, n), make([]int64, n), make([]int64, n)
	accounts, statuses, currencies, methods, correlations := texts(), texts(), texts(), texts(), texts()
	metadata, brCodes, qrURLs, checkoutURLs, eventIDs, data, stems := texts(), texts(), texts(), texts(), texts(), texts(), texts()
	actors, whos, passed := texts(), texts(), texts()
	descriptions, externalIDs, customers, traceparents, tracestates := nullables(), nullables(), nullables(), nullables(), nullables()
	dueDates, dueTerms, splits := nullables(), nullables(), nullables()
	created, updated, expires := times(), times(), times()
	for i, c := range batch {
		p := c.p
		paymentIDs[i], accounts[i], livemodes[i], statuses[i] = pg.UUID(p.ID), p.AccountID, p.Livemode, p.Status
		amounts[i], currencies[i], methods[i] = p.AmountCents, p.Currency, p.PaymentMethod
		descriptions[i], externalIDs[i], customers[i], metadata[i] = p.Description, p.ExternalID, c.customer, c.metadata
		correlations[i], fees[i], brCodes[i], qrURLs[i], checkoutURLs[i] = p.CorrelationID, p.FeeCents, p.BRCode, p.QRCodeURL, p.CheckoutURL
		created[i], updated[i], expires[i] = p.CreatedAt, p.UpdatedAt, p.ExpiresAt
		eventIDs[i], data[i], stems[i], traceparents[i], actors[i] = c.eventID, c.snapshot, c.stem, c.traceparent, c.actor
		whos[i], dueDates[i], dueTerms[i], splits[i], tracestates[i], passed[i] = c.whoJSON(), c.dueDate, c.dueTerms, c.splits, c.tracestate, c.passed
	}
	return []any{paymentIDs, accounts, livemodes, statuses, amounts, currencies, methods, descriptions, externalIDs,
		customers, metadata, correlations, fees, brCodes, qrURLs, checkoutURLs, created, updated, expires,
		eventIDs, data, stems, traceparents, actors, whos, dueDates, dueTerms, splits, tracestates, passed}
}

// lockPayment finds the payment ref names in scope and locks it for tx: a
// UUID equal to a payment's id wins over an equal external_id.
func lockPayment(ctx context.Context, tx bun.Tx, scope Scope, ref string) (*Payment, error) {
	return lockPaymentBy(ctx, tx, lockPaymentStatement(scope, ref))
}

// lockPaymentStatement selects, locking it, the payment ref names in scope.
func lockPaymentStatement(scope Scope, ref string) pg.Statement {
	if id, ok := ParsePaymentID(ref); ok {
		return lockPaymentWhereStatement(`account_id = $1 AND livemode = $2 AND (id = $4 OR external_id = $3)
			ORDER BY id = $4 DESC`, scope.AccountID, scope.Livemode, ref, pg.UUID(id))
	}
	return lockPaymentWhereStatement(`account_id = $1 AND livemode = $2 AND external_id = $3`,
		scope.AccountID, scope.Livemode, ref)
}

// lockPaymentWhere locks for tx the first payment where (a condition on
// $1.., optionally ordered) selects; none is ErrNotFound.
func lockPaymentWhere(ctx context.Context, tx bun.Tx, where string, args ...any) (*Payment, error) {
	return lockPaymentBy(ctx, tx, lockPaymentWhereStatement(where, args...))
}

func lockPaymentWhereStatement(where string, args ...any) pg.Statement {
	return pg.Statement{SQL: `SELECT ` + paymentColumns + ` FROM payments WHERE ` + where + ` LIMIT 1 FOR UPDATE`, Args: args}
}

// lockPaymentBy runs a locking select of one payment in tx; none is ErrNotFound.
func lockPaymentBy(ctx context.Context, tx bun.Tx, st pg.Statement) (*Payment, error) {
	var r paymentRow
	if err := tx.Tx.QueryRowContext(ctx, st.SQL, pg.Prepared(st.Args...)...).Scan(r.dest()...); err != nil {
		return nil, fmt.Errorf("store: payment: %w", translate(err))
	}
	return r.payment()
}

// updatePaymentStatusStatement saves a locked payment's status and
// lifecycle times, all that a change of status moves.
func updatePaymentStatusStatement(p *Payment) pg.Statement {
	var cycle *string
	if p.Cycle != nil {
		b, _ := json.Marshal(p.Cycle)
		c := string(b)
		cycle = &c
	}
	var paidOn *string
	if p.PaidOn != nil {
		on := p.PaidOn.Format(time.DateOnly)
		paidOn = &on
	}
	return pg.Statement{SQL: `UPDATE payments SET status = $2, updated_at = $3, paid_at = $4,
		canceled_at = $5, expired_at = $6, refunded_at = $7, amount_paid_cents = $8, cycle = $9::jsonb, paid_on = $10::date WHERE id = $1`,
		Args: []any{pg.UUID(p.ID), p.Status, p.UpdatedAt, p.PaidAt, p.CanceledAt, p.ExpiredAt, p.RefundedAt, p.AmountPaidCents, cycle, paidOn}}
}

// CancelPayment cancels a pending payment. Canceling a canceled payment
// returns it unchanged. A pending payment already past its expiry is expired
// (with its event) and, like every other status, refuses with ErrInvalidTransition.
func (s *Store) CancelPayment(ctx context.Context, scope Scope, ref string, audit *PaymentAudit) (*Payment, error) {
	return s.transition(ctx, scope, ref, audit, func(p *Payment, now time.Time) (string, error) {
		switch {
		case p.Status == StatusCanceled:
			return "", nil
		case p.Status == StatusPending && !now.Before(p.ExpiresAt):
			p.Status, p.ExpiredAt = StatusExpired, &now
			return EventPaymentExpired, &InvalidTransitionError{Status: StatusExpired}
		case p.Status == StatusPending:
			p.Status, p.CanceledAt = StatusCanceled, &now
			return EventPaymentCanceled, nil
		}
		return "", &InvalidTransitionError{Status: p.Status}
	})
}

// MarkPaymentPaid records the PSP's confirmation. The money is real, so an
// expired or canceled charge becomes paid too; a paid or refunded one refuses.
func (s *Store) MarkPaymentPaid(ctx context.Context, scope Scope, ref string, audit *PaymentAudit) (*Payment, error) {
	return s.transition(ctx, scope, ref, audit, markPaid)
}

// markPaid is the change a confirmed transfer makes (see MarkPaymentPaid):
// what was paid is the amount, unless the caller set it (a due-date
// charge's amount due that day).
func markPaid(p *Payment, now time.Time) (string, error) {
	switch p.Status {
	case StatusPending, StatusExpired, StatusCanceled:
		p.Status, p.PaidAt = StatusPaid, &now
		if p.AmountPaidCents == 0 {
			p.AmountPaidCents = p.AmountCents
		}
		if p.Cycle != nil {
			p.Cycle.Status, p.Cycle.NextAttemptDate = CyclePaid, nil
		}
		return EventPaymentPaid, nil
	}
	return "", &InvalidTransitionError{Status: p.Status}
}

// markPaidAt is markPaid at the PSP's time of settlement (the Pix's
// horario), when it gave one: the one time a payment was paid, which the
// API, the pages, the receipt and the reports all show.
func markPaidAt(settled *time.Time) paymentChange {
	return func(p *Payment, now time.Time) (string, error) {
		if settled != nil {
			now = settled.UTC().Truncate(time.Microsecond)
		}
		return markPaid(p, now)
	}
}

// ErrNotPayableOn is a due-date charge asked to be paid on a date past its
// last payable day.
var ErrNotPayableOn = errors.New("store: the charge cannot be paid on that date")

// MarkPaymentPaidOn pays a test charge as its payer would on date: a
// due-date charge for what it owes that day (fine, interest and discounts
// applied), refused past its last payable day.
func (s *Store) MarkPaymentPaidOn(ctx context.Context, scope Scope, ref string, date calendar.Date, audit *PaymentAudit) (*Payment, error) {
	return s.transition(ctx, scope, ref, audit, func(p *Payment, now time.Time) (string, error) {
		if p.DueTerms != nil && p.Status == StatusPending {
			b := p.DueTerms.On(p.AmountCents, date)
			if !b.Payable {
				return "", ErrNotPayableOn
			}
			p.AmountPaidCents, p.PaidOn = b.AmountDueCents, ptr(date.Time())
		}
		return markPaid(p, now)
	})
}

// ExpirePayment expires a pending payment now, whatever its expires_at.
func (s *Store) ExpirePayment(ctx context.Context, scope Scope, ref string, audit *PaymentAudit) (*Payment, error) {
	return s.transition(ctx, scope, ref, audit, func(p *Payment, now time.Time) (string, error) {
		if p.Status != StatusPending {
			return "", &InvalidTransitionError{Status: p.Status}
		}
		p.Status, p.ExpiredAt = StatusExpired, &now
		return EventPaymentExpired, nil
	})
}

// paymentChange mutates a locked payment at now. It names the event its
// mutation causes ("" for none) and may refuse the caller: a mutation it
// made is saved with its event even when it refuses, because some refusals
// (a cancel arriving after the expiry) first bring the payment up to date.
// A change moves only the status and the lifecycle times: those are what is
// saved.
type paymentChange func(p *Payment, now time.Time) (event string, refusal error)

// A PaymentAudit is the audit row a payment's change writes with it, in the
// change's own statements: the action, by the context's actor, and the
// fields it changed (the status, before and after, and what Also names).
// A change that changed nothing, or was refused, writes none.
type PaymentAudit struct {
	Action string
	Also   func(p *Payment) Changes
}

// record is a's row for p, whose status was before.
func (a *PaymentAudit) record(before string, p *Payment) AuditRecord {
	changes := Changes{"status": {before, p.Status}}
	if a.Also != nil {
		maps.Copy(changes, a.Also(p))
	}
	return AuditRecord{Scope: p.Scope(), Action: a.Action, ObjectID: p.ID.String(), Changes: changes}
}

// transition locks the payment ref names and applies change to it, with
// audit's row (nil: none), in two round trips: the lock (with the
// transaction's begin), then every write with the commit. The account's
// balance row, every payment's, is locked across no round trip between the
// service and PostgreSQL (the payment's own row across one): under load, a
// confirmation queued on it waits for PostgreSQL's work only, not for the
// holder's goroutine and backend to be scheduled again and again (it took
// seven round trips, five of them with the payment locked). In an ambient
// transaction (InTx) it runs statement by statement there; an operation
// that opens one for its audit row loses the two round trips, which is why
// the audit row is audit's, written here.
func (s *Store) transition(ctx context.Context, scope Scope, ref string, audit *PaymentAudit, change paymentChange) (*Payment, error) {
	var p *Payment
	var refusal error
	var err error
	if _, ok := ambientTx(ctx); ok {
		err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if p, err = lockPayment(ctx, tx, scope, ref); err != nil {
				return err
			}
			refusal, err = s.applyAudited(ctx, tx, p, change, audit)
			return err
		})
	} else {
		ctx := s.takesConn(ctx, "a payment's change")
		err = pg.WithConn(ctx, s.db.DB, func(conn *pgx.Conn) error {
			return pg.Transaction(ctx, conn, func() error {
				if p, err = lockPaymentOn(ctx, conn, scope, ref); err != nil {
					return err
				}
				var writes []pg.Statement
				var money []posting
				if writes, money, refusal, err = s.changeStatements(ctx, filtersOn(conn), p, change, audit); err != nil {
					return err
				}
				writes = append(append(writes, postingStatements(money)...), pg.Commit)
				if err := pg.Pipeline(ctx, conn, writes, ignoreRows); err != nil {
					return fmt.Errorf("store: record payment change: %w", translate(err))
				}
				return nil
			})
		})
	}
	if err != nil {
		return nil, err
	}
	if refusal != nil {
		return nil, refusal
	}
	return p, nil
}

// lockPaymentOn begins a transaction on conn and locks in it the payment
// ref names in scope, in one round trip; none is ErrNotFound.
func lockPaymentOn(ctx context.Context, conn *pgx.Conn, scope Scope, ref string) (*Payment, error) {
	var r paymentRow
	found := false
	err := pg.Pipeline(ctx, conn, []pg.Statement{pg.Begin, lockPaymentStatement(scope, ref)}, func(i int, rows pgx.Rows) error {
		if i == 1 && rows.Next() {
			found = true
			return rows.Scan(r.dest()...)
		}
		return nil
	})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	if err != nil {
		return nil, fmt.Errorf("store: payment: %w", translate(err))
	}
	return r.payment()
}

func ignoreRows(int, pgx.Rows) error { return nil }

// apply runs change on the payment p tx locked and, when it causes an
// event, saves the payment, records the event and posts the money it
// moves, all in tx. It returns change's refusal.
func (s *Store) apply(ctx context.Context, tx bun.Tx, p *Payment, change paymentChange) (refusal error, err error) {
	return s.applyAudited(ctx, tx, p, change, nil)
}

// applyAudited is apply writing audit's row too (nil: none).
func (s *Store) applyAudited(ctx context.Context, tx bun.Tx, p *Payment, change paymentChange, audit *PaymentAudit) (refusal error, err error) {
	writes, money, refusal, err := s.changeStatements(ctx, filtersIn(tx), p, change, audit)
	if err != nil {
		return nil, err
	}
	for _, st := range writes {
		if err := execIn(ctx, tx, "record payment change", st); err != nil {
			return nil, err
		}
	}
	return refusal, s.postAll(ctx, tx, money)
}

// changeStatements runs change on the locked payment p and returns the
// statements that record it (none when it causes no event): the payment,
// its event, the PSP call a canceled charge needs, audit's row unless
// change refused (audit may be nil); and apart, the money it
// moves, for its caller to write last, so that the account's balance row
// (every payment's) stays locked only until the commit. It returns
// change's refusal. read reads the account's filtered webhooks on a miss,
// through the caller's transaction (filterReader).
func (s *Store) changeStatements(ctx context.Context, read filterReader, p *Payment, change paymentChange, audit *PaymentAudit) (writes []pg.Statement, money []posting, refusal error, err error) {
	now := s.Now()
	before := p.Status
	eventType, refusal := change(p, now)
	if eventType == "" {
		return nil, nil, refusal, nil
	}
	p.UpdatedAt = now
	event, err := s.recordEventStatement(ctx, read, eventType, p.AccountID, p.Livemode, p.ID.String(), p, p.UpdatedAt)
	if err != nil {
		return nil, nil, nil, err
	}
	writes = append(writes, updatePaymentStatusStatement(p), event)
	if audit != nil && refusal == nil {
		writes = append(writes, auditStatement(ctx, audit.record(before, p), now))
	}
	if eventType == EventPaymentCanceled && p.ChargeState == ChargeRegistered {
		// The charge at the PSP must stop being payable too.
		writes = append(writes, s.queueCallStatement(&p.AccountID, CallCobRemove, p.ID.String(), time.Time{}))
	}
	if eventType == EventPaymentPaid {
		// A paid charge credits what it received and debits its fee. (Refunds
		// post their own: refunds.go.)
		// A split charge's parts go on to their accounts, one entry each.
		money = []posting{{scope: p.Scope(), sourceID: p.ID.String(), at: p.UpdatedAt, lines: []movement{
			{BalanceAvailable, EntryPayment, p.ReceivedCents()},
			{BalanceAvailable, EntryFee, -p.FeeCents},
		}}}
		money = append(money, splitPostings(p, p.ID.String(), EntrySplit, p.UpdatedAt, p.SplitParts())...)
	}
	return writes, money, refusal, nil
}

// expireOverdueSQL moves up to $2 pending payments whose expiry has passed
// at $1 to expired and returns them. SKIP LOCKED lets several sweepers (or
// a concurrent cancel) run side by side.
const expireOverdueSQL = `WITH due AS (
		SELECT id FROM payments WHERE status = 'pending' AND expires_at <= $1
		ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED
	)
	UPDATE payments SET status = 'expired', expired_at = $1, updated_at = $1,
		-- A subscription's cycle nobody settled before its last day failed.
		cycle = CASE WHEN cycle IS NULL THEN NULL
			ELSE cycle || '{"status": "failed", "next_attempt_date": null}'::jsonb END
	WHERE id IN (SELECT id FROM due)
	RETURNING ` + paymentColumns

// ExpireOverdue expires up to limit pending payments whose expiry has
// passed, each with its payment.expired event, and returns how many it moved.
func (s *Store) ExpireOverdue(ctx context.Context, limit int) (int, error) {
	var moved int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows, err := tx.Tx.QueryContext(ctx, expireOverdueSQL, pg.Prepared(s.Now(), limit)...)
		if err != nil {
			return fmt.Errorf("store: expire overdue payments: %w", err)
		}
		var expired []*Payment
		for rows.Next() {
			var r paymentRow
			if err := rows.Scan(r.dest()...); err != nil {
				rows.Close()
				return fmt.Errorf("store: expired payment: %w", err)
			}
			p, err := r.payment()
			if err != nil {
				rows.Close()
				return err
			}
			expired = append(expired, p)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: expire overdue payments: %w", err)
		}
		// Their events, in the order they expired, in one statement.
		slices.SortFunc(expired, func(a, b *Payment) int {
			return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), bytes.Compare(a.ID[:], b.ID[:]))
		})
		events := make([]NewEvent, len(expired))
		for i, p := range expired {
			events[i] = NewEvent{Scope: p.Scope(), Type: EventPaymentExpired, ObjectID: p.ID.String(),
				Data: p.appendJSON(make([]byte, 0, 1024)), At: p.UpdatedAt}
		}
		moved = len(expired)
		if moved == 0 {
			return nil
		}
		if err := s.recordEvents(ctx, tx, events); err != nil {
			return err
		}
		// The service's own doing (the sweep): an audit row for each.
		audits := make([]AuditRecord, len(expired))
		for i, p := range expired {
			audits[i] = AuditRecord{Scope: p.Scope(), Action: "payment.expired", ObjectID: p.ID.String(),
				Changes: Changes{"status": {StatusPending, StatusExpired}}}
		}
		return s.auditManyOn(ctx, tx, audits)
	})
	return moved, err
}
