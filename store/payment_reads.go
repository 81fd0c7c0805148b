package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
)

// Payment finds a payment by ref: a UUID equal to a payment's id wins,
// otherwise ref is taken as an external_id. Other scopes' payments are ErrNotFound.
func (s *Store) Payment(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	// The API's hottest read. By id it goes through paymentReads (below),
	// unless a request's transaction is open; the external_id is tried only
	// when no payment of the scope has that id.
	if id, ok := ParsePaymentID(ref); ok {
		var p *Payment
		var err error
		if _, inTx := ctx.Value(ambientTxKey{}).(bun.Tx); inTx {
			p, err = s.scanPayment(ctx, paymentByIDSQL, pgUUID(id), scope.AccountID, scope.Livemode)
		} else {
			p, err = s.reads.do(ctx, paymentRead{id: id, scope: scope})
		}
		if !errors.Is(err, ErrNotFound) {
			return p, err
		}
	}
	return s.scanPayment(ctx, `SELECT `+paymentColumns+` FROM payments
		WHERE external_id = $1 AND account_id = $2 AND livemode = $3`, ref, scope.AccountID, scope.Livemode)
}

// paymentColumns are what paymentRow reads, in its order.
const paymentColumns = `id, account_id, livemode, status, amount_cents, currency, payment_method, description,
	external_id, customer, metadata, correlation_id, fee_cents, br_code, qr_code_url, checkout_url,
	created_at, updated_at, expires_at, paid_at, canceled_at, expired_at, refunded_at`

// paymentRow scans paymentColumns without reflection.
type paymentRow struct {
	p                  Payment
	id                 pgtype.UUID
	customer, metadata []byte
}

func (r *paymentRow) dest() []any {
	p := &r.p
	return []any{&r.id, &p.AccountID, &p.Livemode, &p.Status, &p.AmountCents, &p.Currency,
		&p.PaymentMethod, &p.Description, &p.ExternalID, &r.customer, &r.metadata, &p.CorrelationID, &p.FeeCents,
		&p.BRCode, &p.QRCodeURL, &p.CheckoutURL, &p.CreatedAt, &p.UpdatedAt, &p.ExpiresAt, &p.PaidAt,
		&p.CanceledAt, &p.ExpiredAt, &p.RefundedAt}
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
	metadata, err := decodeStringMap(r.metadata)
	if err != nil {
		return nil, fmt.Errorf("store: payment metadata: %w", err)
	}
	p.Metadata = metadata
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

// paymentReads coalesces concurrent reads of payments by id (see
// coalescer): a batch is one statement, one index probe per read. Each read
// still sees the database as of its own request: nothing is cached.
type paymentReads = coalescer[paymentRead, *Payment]

type paymentRead struct {
	id    uuid.UUID
	scope Scope
}

func newPaymentReads(s *Store) *paymentReads {
	// Two batches in flight keep both cores' worth of backends busy; more
	// would only shrink the batches.
	return &paymentReads{maxInFlight: 2, maxBatch: 64, timeout: 10 * time.Second, serve: s.servePaymentReads}
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

// genericPlanSQL precedes paymentsByIDSQL in its round trip, for that
// transaction only. A custom plan (PostgreSQL's choice while the batches'
// sizes make one look cheaper) is planned again on every execution, which
// cost more than the batch's reads; the generic plan is planned once per
// connection and the same for any batch size.
const genericPlanSQL = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`

// servePaymentReads answers each read: its payment, or ErrNotFound when no
// payment of its scope has the id.
func (s *Store) servePaymentReads(ctx context.Context, batch []paymentRead) []outcome[*Payment] {
	outs := make([]outcome[*Payment], len(batch))
	ids := make([]pgtype.UUID, len(batch))
	accounts := make([]string, len(batch))
	livemodes := make([]bool, len(batch))
	for i, r := range batch {
		ids[i], accounts[i], livemodes[i] = pgUUID(r.id), r.scope.AccountID, r.scope.Livemode
	}
	var row paymentRow
	var ordinal int64 = 1
	// A read alone is one statement with a plain plan; a batch is one
	// statement for all its reads, which leads its rows with their ordinals.
	stmts := []statement{{sql: paymentByIDSQL, args: []any{ids[0], accounts[0], livemodes[0]}}}
	dest := row.dest()
	if len(batch) > 1 {
		stmts = []statement{{sql: genericPlanSQL}, {sql: paymentsByIDSQL, args: []any{ids, accounts, livemodes}}}
		dest = append([]any{&ordinal}, dest...)
	}
	err := s.pipelined(ctx, stmts, func(stmt int, rows pgx.Rows) error {
		if stmt < len(stmts)-1 {
			return nil
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if ordinal < 1 || ordinal > int64(len(outs)) {
				return fmt.Errorf("read ordinal %d outside the batch of %d", ordinal, len(outs))
			}
			outs[ordinal-1].out, outs[ordinal-1].err = row.payment()
		}
		return nil
	})
	for i := range outs {
		switch {
		case err != nil:
			outs[i] = outcome[*Payment]{err: fmt.Errorf("store: payment: %w", err)}
		case outs[i].out == nil && outs[i].err == nil:
			outs[i].err = fmt.Errorf("store: payment %s: %w", batch[i].id, ErrNotFound)
		}
	}
	return outs
}
