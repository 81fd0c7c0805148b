package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
)

// Payment finds a payment by ref: a UUID equal to a payment's id wins,
// otherwise ref is taken as an external_id. Other scopes' payments are ErrNotFound.
func (s *Store) Payment(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	// The API's hottest read. By id it goes through the read batcher
	// (below); the external_id only when no payment of the scope has that id.
	if id, ok := ParsePaymentID(ref); ok {
		var p *Payment
		var err error
		if _, inTx := ctx.Value(ambientTxKey{}).(bun.Tx); inTx {
			p, err = s.scanPayment(ctx, `SELECT `+paymentColumns+` FROM payments
				WHERE id = $1 AND account_id = $2 AND livemode = $3`, pgUUID(id), scope.AccountID, scope.Livemode)
		} else {
			p, err = s.reads.payment(ctx, s, id, scope)
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

// paymentReads coalesces concurrent reads of payments by id into one
// statement (`WHERE id = ANY($1)`). Under load a single-row read spends far
// more on its round trip (the protocol messages, two system calls each side,
// waking a backend) than on the row, so one round trip for many requests
// serves more of them with the same CPU. Nothing waits to fill a batch: a
// read runs at once while fewer than maxReadsInFlight statements are out,
// and otherwise joins the next one, which takes everything that queued
// meanwhile. Each read still sees the database as of its own request (no
// cache).
type paymentReads struct {
	mu       sync.Mutex
	queued   []*paymentRead
	inFlight int
}

// maxReadsInFlight bounds the batch statements running at once (so the
// connections the batcher holds); requests beyond them queue and batch.
const maxReadsInFlight = 2

// maxReadBatch bounds one statement's ids.
const maxReadBatch = 64

// readBatchTimeout bounds one batch statement; each read also gives up when
// its own request does.
const readBatchTimeout = 10 * time.Second

type paymentRead struct {
	id    uuid.UUID
	scope Scope
	done  chan paymentReadResult
}

type paymentReadResult struct {
	p   *Payment
	err error
}

func (b *paymentReads) payment(ctx context.Context, s *Store, id uuid.UUID, scope Scope) (*Payment, error) {
	read := &paymentRead{id: id, scope: scope, done: make(chan paymentReadResult, 1)}
	b.mu.Lock()
	b.queued = append(b.queued, read)
	if b.inFlight < maxReadsInFlight {
		b.inFlight++
		// The runner outlives no request: it stops when the queue is empty.
		go b.run(context.WithoutCancel(ctx), s)
	}
	b.mu.Unlock()
	select {
	case res := <-read.done:
		return res.p, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run serves queued reads, a batch at a time, until none are left.
func (b *paymentReads) run(ctx context.Context, s *Store) {
	for {
		b.mu.Lock()
		n := min(len(b.queued), maxReadBatch)
		if n == 0 {
			b.inFlight--
			b.mu.Unlock()
			return
		}
		batch := b.queued[:n:n]
		b.queued = b.queued[n:]
		if len(b.queued) == 0 {
			b.queued = nil
		}
		b.mu.Unlock()
		b.serve(ctx, s, batch)
	}
}

// serve reads one batch and answers each read: its payment, or ErrNotFound
// when no payment of its scope has the id.
func (b *paymentReads) serve(ctx context.Context, s *Store, batch []*paymentRead) {
	ids := make([]pgtype.UUID, len(batch))
	for i, r := range batch {
		ids[i] = pgUUID(r.id)
	}
	found := make(map[uuid.UUID]paymentRow, len(batch))
	ctx, cancel := context.WithTimeout(ctx, readBatchTimeout)
	defer cancel()
	err := s.withPgx(ctx, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = ANY($1)`,
			pgx.QueryExecModeCacheStatement, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var row paymentRow
			if err := rows.Scan(row.dest()...); err != nil {
				return err
			}
			found[row.id.Bytes] = row
		}
		return rows.Err()
	})
	for _, r := range batch {
		row, ok := found[r.id]
		var res paymentReadResult
		switch {
		case err != nil:
			res.err = fmt.Errorf("store: payment: %w", err)
		case !ok || row.p.Scope() != r.scope:
			res.err = fmt.Errorf("store: payment %s: %w", r.id, ErrNotFound)
		default:
			// Decoded per read: two reads of one id share nothing.
			res.p, res.err = row.payment()
		}
		r.done <- res
	}
}
