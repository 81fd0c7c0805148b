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
	if err := json.Unmarshal(r.metadata, &p.Metadata); err != nil {
		return nil, fmt.Errorf("store: payment metadata: %w", err)
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

// paymentReads coalesces concurrent reads of payments by id (see
// coalescer): each is its own prepared statement, but they travel together.
// Each read still sees the database as of its own request: nothing is cached.
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

// servePaymentReads answers each read: its payment, or ErrNotFound when no
// payment of its scope has the id.
func (s *Store) servePaymentReads(ctx context.Context, batch []paymentRead) []outcome[*Payment] {
	outs := make([]outcome[*Payment], len(batch))
	argLists := make([][]any, len(batch))
	for i, r := range batch {
		argLists[i] = []any{pgUUID(r.id), r.scope.AccountID, r.scope.Livemode}
		outs[i].err = fmt.Errorf("store: payment %s: %w", r.id, ErrNotFound)
	}
	err := s.pipelined(ctx, paymentByIDSQL, argLists, func(i int, rows pgx.Rows) error {
		if !rows.Next() {
			return nil
		}
		var row paymentRow
		if err := rows.Scan(row.dest()...); err != nil {
			return err
		}
		outs[i].out, outs[i].err = row.payment()
		return nil
	})
	if err != nil {
		for i := range outs {
			outs[i] = outcome[*Payment]{err: fmt.Errorf("store: payment: %w", err)}
		}
	}
	return outs
}
