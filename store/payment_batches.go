package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"payments/store/ids"
	"payments/store/internal/pg"
)

// A batch of charges (API Pix's lotecobv): one request creating up to
// MaxBatchItems payments, each validated on its own. Live, its due-date
// charges are registered at the PSP together (PUT /lotecobv/{id}), each
// becoming payable as the PSP creates it; its other charges go one by
// one, as any charge.

// MaxBatchItems bounds a batch.
const MaxBatchItems = 1000

// Statuses of a batch's item.
const (
	BatchItemCreated    = "created"    // the payment exists (live: the PSP has yet to register it)
	BatchItemRegistered = "registered" // live: the PSP registered its charge
	BatchItemRefused    = "refused"    // not created, or the PSP refused it: see its error
)

// BatchItemStatuses lists every item status.
var BatchItemStatuses = []string{BatchItemCreated, BatchItemRegistered, BatchItemRefused}

// ItemError is why a batch's item was refused, in the API's error shape.
type ItemError struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Param   string `json:"param,omitempty"`
	Message string `json:"message"`
}

// PaymentBatch is a batch and, when read, its items in order.
type PaymentBatch struct {
	bun.BaseModel `bun:"table:payment_batches"`

	ID          string    `bun:"id,pk"`
	AccountID   string    `bun:"account_id"`
	Livemode    bool      `bun:"livemode"`
	PSPID       int64     `bun:"psp_id,nullzero"`
	Description *string   `bun:"description"`
	ItemCount   int       `bun:"item_count"`
	CreatedAt   time.Time `bun:"created_at"`

	Items []PaymentBatchItem `bun:"-"`
}

// Scope is the account and mode the batch belongs to.
func (b *PaymentBatch) Scope() Scope { return Scope{AccountID: b.AccountID, Livemode: b.Livemode} }

// PaymentBatchItem is one item: its payment, or why it has none.
type PaymentBatchItem struct {
	bun.BaseModel `bun:"table:payment_batch_items"`

	BatchID    string     `bun:"batch_id,pk"`
	Position   int        `bun:"position,pk"`
	ExternalID *string    `bun:"external_id"`
	PaymentID  *uuid.UUID `bun:"payment_id,type:uuid"`
	Error      *ItemError `bun:"error,type:jsonb"`
	// ChargeState is its payment's, when read.
	ChargeState *string `bun:"charge_state,scanonly"`
}

// Status is where the item stands (BatchItemCreated ...).
func (i *PaymentBatchItem) Status() string {
	switch {
	case i.Error != nil || i.ChargeState != nil && *i.ChargeState == ChargeFailed:
		return BatchItemRefused
	case i.ChargeState != nil && *i.ChargeState == ChargeRegistered:
		return BatchItemRegistered
	}
	return BatchItemCreated
}

// Problem is why the item was refused (nil when it was not).
func (i *PaymentBatchItem) Problem() *ItemError {
	if i.Error == nil && i.Status() == BatchItemRefused {
		return &ItemError{Type: "api_error", Code: "psp_refused", Message: "The PSP refused this charge."}
	}
	return i.Error
}

// BatchEntry is one item of a new batch: a payment BuildPayment made, or
// why the request's item was refused.
type BatchEntry struct {
	ExternalID *string
	Payment    *Payment
	Error      *ItemError
}

// errExternalIDTaken is the entry at position whose external_id another
// payment has.
func errExternalIDTaken(position int, id string) *ItemError {
	return &ItemError{Type: "invalid_request_error", Code: "external_id_taken", Param: fmt.Sprintf("payments[%d].external_id", position),
		Message: fmt.Sprintf("A payment with external_id '%s' already exists.", id)}
}

// CreatePaymentBatch stores a batch of scope and its entries, in order, in
// one transaction (the request's, when it has one): each entry's payment is
// created (test mode: with its payment.created event; live: registering,
// with the calls that register it), except those whose external_id is
// taken, which are refused like the entries that came refused. It fills
// b's id, number at the PSP, items and creation time.
func (s *Store) CreatePaymentBatch(ctx context.Context, b *PaymentBatch, entries []BatchEntry) error {
	now := s.Now().Truncate(time.Millisecond)
	b.ID, b.CreatedAt, b.ItemCount = ids.New(ids.PrefixBatch), now, len(entries)
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(b).Returning("psp_id").Exec(ctx); err != nil {
			return fmt.Errorf("store: create payment batch: %w", err)
		}
		if err := refuseTakenExternalIDs(ctx, tx, b.Scope(), entries); err != nil {
			return err
		}
		var err error
		if b.Livemode {
			err = s.createLiveBatchPayments(ctx, tx, b, entries)
		} else {
			err = s.createTestBatchPayments(ctx, tx, entries)
		}
		if err != nil {
			return err
		}
		b.Items = make([]PaymentBatchItem, len(entries))
		for i, e := range entries {
			item := PaymentBatchItem{BatchID: b.ID, Position: i, ExternalID: e.ExternalID, Error: e.Error}
			if e.Payment != nil {
				item.PaymentID, item.ChargeState = &e.Payment.ID, &e.Payment.ChargeState
			}
			b.Items[i] = item
		}
		if len(b.Items) > 0 {
			if _, err := tx.NewInsert().Model(&b.Items).Exec(ctx); err != nil {
				return fmt.Errorf("store: payment batch items: %w", err)
			}
		}
		return s.auditOn(ctx, tx, AuditRecord{Scope: b.Scope(), Action: "payment_batch.created", ObjectID: b.ID,
			Changes: Changes{"item_count": {nil, b.ItemCount}}})
	})
}

// refuseTakenExternalIDs refuses the entries whose external_id a payment
// of scope, or an earlier entry, already has.
func refuseTakenExternalIDs(ctx context.Context, tx bun.Tx, scope Scope, entries []BatchEntry) error {
	var wanted []string
	for _, e := range entries {
		if e.Payment != nil && e.ExternalID != nil {
			wanted = append(wanted, *e.ExternalID)
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	var taken []string
	err := tx.NewSelect().Model((*Payment)(nil)).Column("external_id").
		Where("account_id = ? AND livemode = ? AND external_id = ANY(?)", scope.AccountID, scope.Livemode, pgdialect.Array(wanted)).
		Scan(ctx, &taken)
	if err != nil {
		return fmt.Errorf("store: taken external ids: %w", err)
	}
	seen := make(map[string]bool, len(wanted))
	for _, id := range taken {
		seen[id] = true
	}
	for i := range entries {
		e := &entries[i]
		if e.Payment == nil || e.ExternalID == nil {
			continue
		}
		if seen[*e.ExternalID] {
			e.Payment, e.Error = nil, errExternalIDTaken(i, *e.ExternalID)
			continue
		}
		seen[*e.ExternalID] = true
	}
	return nil
}

// createTestBatchPayments creates the entries' test payments with their
// events in one statement (createPaymentsSQL); one whose external_id was
// taken meanwhile is refused.
func (s *Store) createTestBatchPayments(ctx context.Context, tx bun.Tx, entries []BatchEntry) error {
	var creates []paymentCreate
	var at []int
	for i, e := range entries {
		if e.Payment != nil {
			c, err := s.newRequestedCreate(ctx, filtersIn(tx), e.Payment)
			if err != nil {
				return err
			}
			creates, at = append(creates, c), append(at, i)
		}
	}
	if len(creates) == 0 {
		return nil
	}
	rows, err := tx.Tx.QueryContext(ctx, createPaymentsSQL, pg.Prepared(createPaymentsArgs(creates)...)...)
	if err != nil {
		return fmt.Errorf("store: create batch payments: %w", translate(err))
	}
	defer rows.Close()
	for rows.Next() {
		var ordinal, notified int64
		var created bool
		if err := rows.Scan(&ordinal, &created, &notified); err != nil {
			return fmt.Errorf("store: create batch payments: %w", err)
		}
		if e := &entries[at[ordinal-1]]; !created {
			e.Error, e.Payment = errExternalIDTaken(at[ordinal-1], *e.ExternalID), nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: create batch payments: %w", translate(err))
	}
	return nil
}

// createLiveBatchPayments stores the entries' live payments, registering,
// each with its audit row, and queues their registration: the due-date
// charges together (lotecobv), the others one by one (cob).
func (s *Store) createLiveBatchPayments(ctx context.Context, tx bun.Tx, b *PaymentBatch, entries []BatchEntry) error {
	var payments []*Payment
	for _, e := range entries {
		if p := e.Payment; p != nil {
			p.BRCode, p.QRCodeURL, p.ChargeState = "", "", ChargeRegistering
			payments = append(payments, p)
		}
	}
	if len(payments) == 0 {
		return nil
	}
	var inserted []uuid.UUID
	err := tx.NewInsert().Model(&payments).
		On("CONFLICT (account_id, livemode, external_id) WHERE external_id IS NOT NULL DO NOTHING").
		Returning("id").Scan(ctx, &inserted)
	if err != nil {
		return fmt.Errorf("store: create live batch payments: %w", translate(err))
	}
	created := make(map[uuid.UUID]bool, len(inserted))
	for _, id := range inserted {
		created[id] = true
	}
	var audits []AuditRecord
	due := false
	for i := range entries {
		e := &entries[i]
		if e.Payment == nil {
			continue
		}
		p := e.Payment
		if !created[p.ID] {
			e.Error, e.Payment = errExternalIDTaken(i, *e.ExternalID), nil
			continue
		}
		audits = append(audits, AuditRecord{Scope: p.Scope(), Action: EventPaymentCreated, ObjectID: p.ID.String(),
			Changes: Changes{"status": {nil, p.Status}, "amount_cents": {nil, p.AmountCents}, "payment_batch": {nil, b.ID}}})
		if p.DueTerms != nil {
			due = true
			continue
		}
		if err := s.queueCall(ctx, tx, &p.AccountID, CallCobCreate, p.ID.String(), time.Time{}); err != nil {
			return err
		}
	}
	if err := s.auditManyOn(ctx, tx, audits); err != nil {
		return err
	}
	if due {
		return s.queueCall(ctx, tx, &b.AccountID, CallLoteCobVCreate, b.ID, time.Time{})
	}
	return nil
}

// PaymentBatch reads the batch id of scope with its items; another
// scope's is ErrNotFound.
func (s *Store) PaymentBatch(ctx context.Context, scope Scope, id string) (*PaymentBatch, error) {
	b := new(PaymentBatch)
	err := s.idb(ctx).NewSelect().Model(b).Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: payment batch: %w", translate(err))
	}
	return b, s.batchItems(ctx, b)
}

// PaymentBatchByID reads the batch id, of any scope, with its items: the
// PSP worker's.
func (s *Store) PaymentBatchByID(ctx context.Context, id string) (*PaymentBatch, error) {
	b := new(PaymentBatch)
	if err := s.idb(ctx).NewSelect().Model(b).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: payment batch: %w", translate(err))
	}
	return b, s.batchItems(ctx, b)
}

func (s *Store) batchItems(ctx context.Context, b *PaymentBatch) error {
	err := s.idb(ctx).NewSelect().Model(&b.Items).ColumnExpr("payment_batch_item.*, p.charge_state").
		Join("LEFT JOIN payments AS p ON p.id = payment_batch_item.payment_id").
		Where("payment_batch_item.batch_id = ?", b.ID).Order("payment_batch_item.position").Scan(ctx)
	if err != nil {
		return fmt.Errorf("store: payment batch items: %w", err)
	}
	return nil
}

// ListPaymentBatches lists scope's batches, newest first, without their items.
func (s *Store) ListPaymentBatches(ctx context.Context, scope Scope, limit int) ([]PaymentBatch, error) {
	var out []PaymentBatch
	err := s.idb(ctx).NewSelect().Model(&out).Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode).
		Order("created_at DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: payment batches: %w", err)
	}
	return out, nil
}

// RegisteringDueCharges are the batch's due-date payments still waiting
// for the PSP, in the batch's order.
func (s *Store) RegisteringDueCharges(ctx context.Context, batchID string) ([]*Payment, error) {
	rows, err := s.db.DB.QueryContext(ctx, `SELECT `+paymentColumns+` FROM payments
		WHERE id IN (SELECT payment_id FROM payment_batch_items WHERE batch_id = $1 AND payment_id IS NOT NULL)
			AND charge_state = '`+ChargeRegistering+`' AND due_terms IS NOT NULL
		ORDER BY id`, batchID)
	if err != nil {
		return nil, fmt.Errorf("store: registering due charges: %w", err)
	}
	defer rows.Close()
	var out []*Payment
	for rows.Next() {
		var r paymentRow
		if err := rows.Scan(r.dest()...); err != nil {
			return nil, fmt.Errorf("store: registering due charges: %w", err)
		}
		p, err := r.payment()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// RecordBatchItemRefusal keeps why the PSP refused the batch's charge of
// payment id (its payment is failed apart, by FailCharge).
func (s *Store) RecordBatchItemRefusal(ctx context.Context, paymentID uuid.UUID, why ItemError) error {
	raw, err := json.Marshal(why)
	if err != nil {
		return fmt.Errorf("store: batch item refusal: %w", err)
	}
	_, err = s.idb(ctx).NewUpdate().Model((*PaymentBatchItem)(nil)).Set("error = ?::jsonb", string(raw)).
		Where("payment_id = ? AND error IS NULL", paymentID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: batch item refusal: %w", err)
	}
	return nil
}
