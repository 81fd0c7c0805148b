package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/pix"
	"payments/store/ids"
)

// PixQRCode is a static Pix QR code: a BR Code with the receiver's key,
// a fixed amount or none (the payer types it), and a txid of its own, paid
// any number of times; each payment into it is a payment that names it.
type PixQRCode struct {
	bun.BaseModel `bun:"table:pix_qr_codes"`

	ID            string     `bun:"id,pk"`
	AccountID     string     `bun:"account_id"`
	Livemode      bool       `bun:"livemode"`
	AmountCents   *int64     `bun:"amount_cents"`
	Description   *string    `bun:"description"`
	TxID          string     `bun:"txid"`
	BRCode        string     `bun:"br_code"`
	Status        string     `bun:"status"`
	ExpiresAt     *time.Time `bun:"expires_at"`
	Payments      int64      `bun:"payments"`
	ReceivedCents int64      `bun:"received_cents"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`

	// BaseURL is where its page and image are served (not stored).
	BaseURL string `bun:"-"`
}

// A static code's statuses.
const (
	QRCodeActive   = "active"
	QRCodeDisabled = "disabled"
)

// MaxQRCodeDescription bounds a static code's description (the payer's
// bank shows it).
const MaxQRCodeDescription = 140

// Scope is the account and mode the code belongs to.
func (q *PixQRCode) Scope() Scope { return Scope{AccountID: q.AccountID, Livemode: q.Livemode} }

// Payable says whether the code takes a payment at now.
func (q *PixQRCode) Payable(now time.Time) bool {
	return q.Status == QRCodeActive && (q.ExpiresAt == nil || now.Before(*q.ExpiresAt))
}

// QRCodeStandings are what Standing says.
var QRCodeStandings = []string{QRCodeActive, "expired", QRCodeDisabled}

// Standing is what the code does at now, as the dashboard shows it:
// "active", "expired" or "disabled".
func (q *PixQRCode) Standing(now time.Time) string {
	switch {
	case q.Status != QRCodeActive:
		return q.Status
	case !q.Payable(now):
		return "expired"
	}
	return QRCodeActive
}

// NewPixQRCode is a static code as asked for, checked by the caller: its
// amount (0: the payer types it), description and expiry.
type NewPixQRCode struct {
	AmountCents int64
	Description *string
	ExpiresAt   *time.Time
}

// CreatePixQRCode makes acct a static code in its mode: its BR Code carries
// the receiver's key, its amount when fixed, and its txid (field 62-05:
// at most 25 letters and digits).
func (s *Store) CreatePixQRCode(ctx context.Context, acct *Account, livemode bool, in NewPixQRCode) (*PixQRCode, error) {
	now := s.Now()
	q := &PixQRCode{ID: ids.New(ids.PrefixPixQRCode), AccountID: acct.ID, Livemode: livemode, Description: in.Description,
		TxID: "PQR" + pix.RandomBase62(22), Status: QRCodeActive, ExpiresAt: in.ExpiresAt, CreatedAt: now, UpdatedAt: now}
	if in.AmountCents > 0 {
		q.AmountCents = &in.AmountCents
	}
	code, err := pix.BRCode{Key: s.charges.Receiver.Key, MerchantName: acct.Name, MerchantCity: s.charges.Receiver.City,
		AmountCents: in.AmountCents, TxID: q.TxID}.Encode()
	if err != nil {
		return nil, fmt.Errorf("store: static code: %w", err)
	}
	q.BRCode = code
	if _, err := s.idb(ctx).NewInsert().Model(q).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: create static code: %w", translate(err))
	}
	q.BaseURL = s.charges.BaseURL
	return q, nil
}

// PixQRCodeOf returns one of the scope's static codes.
func (s *Store) PixQRCodeOf(ctx context.Context, scope Scope, id string) (*PixQRCode, error) {
	q := new(PixQRCode)
	err := s.idb(ctx).NewSelect().Model(q).Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: static code: %w", translate(err))
	}
	q.BaseURL = s.charges.BaseURL
	return q, nil
}

// DeactivatePixQRCode disables the scope's static code id: it takes no
// more payments (a Pix paid into it still arrives, as to any key, and
// waits with support to be returned, as one naming no charge does).
// changed is false for a code disabled already.
func (s *Store) DeactivatePixQRCode(ctx context.Context, scope Scope, id string) (q *PixQRCode, changed bool, err error) {
	res, err := s.idb(ctx).NewUpdate().Model((*PixQRCode)(nil)).Set("status = ?, updated_at = ?", QRCodeDisabled, s.Now()).
		Where("id = ? AND account_id = ? AND livemode = ? AND status = ?", id, scope.AccountID, scope.Livemode, QRCodeActive).Exec(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("store: deactivate static code: %w", err)
	}
	if q, err = s.PixQRCodeOf(ctx, scope, id); err != nil {
		return nil, false, err
	}
	n, _ := res.RowsAffected()
	return q, n > 0, nil
}

// ListPixQRCodes returns one page of the scope's static codes, newest first.
func (s *Store) ListPixQRCodes(ctx context.Context, p IDListParams) ([]PixQRCode, bool, error) {
	var out []PixQRCode
	hasMore, err := listByID(ctx, s.idb(ctx).NewSelect().Model(&out), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list static codes: %w", err)
	}
	for i := range out {
		out[i].BaseURL = s.charges.BaseURL
	}
	return out, hasMore, nil
}

// ErrQRCodeNotPayable is a code disabled or past its expiry; ErrQRCodeAmount
// a payment of another amount than a fixed code's (or of none).
var (
	ErrQRCodeNotPayable = errors.New("store: the static code takes no payment")
	ErrQRCodeAmount     = errors.New("store: the amount is not the static code's")
)

// PayPixQRCode records a payment of amount into the scope's static code
// id, as a payer's bank made it: a payment of its own (its own txid and
// id, pix_qr_code set, the code's description), created and paid in one
// transaction (payment.created, payment.paid, the ledger), and the code's
// counts.
func (s *Store) PayPixQRCode(ctx context.Context, acct *Account, scope Scope, id string, amount int64) (*Payment, error) {
	var p *Payment
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := new(PixQRCode)
		err := tx.NewSelect().Model(q).Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).
			For("UPDATE").Scan(ctx)
		if err != nil {
			return fmt.Errorf("store: static code: %w", translate(err))
		}
		p, err = s.payIntoCode(withAmbient(ctx, tx), tx, acct, q, amount)
		return err
	})
	return p, err
}

// payIntoCode is a payment of amount into the locked code q, in tx.
func (s *Store) payIntoCode(ctx context.Context, tx bun.Tx, acct *Account, q *PixQRCode, amount int64) (*Payment, error) {
	switch {
	case !q.Payable(s.Now()):
		return nil, ErrQRCodeNotPayable
	case amount < 1 || amount > MaxAmountCents || (q.AmountCents != nil && amount != *q.AmountCents):
		return nil, ErrQRCodeAmount
	}
	p, err := s.BuildPayment(acct, q.Livemode, NewPayment{AmountCents: amount, Description: q.Description, Metadata: map[string]string{}})
	if err != nil {
		return nil, err
	}
	p.PixQRCode = &q.ID
	if err := s.CreatePayment(ctx, p); err != nil {
		return nil, err
	}
	if _, err := tx.NewRaw(`UPDATE payments SET pix_qr_code = ? WHERE id = ?`, q.ID, p.ID).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: payment into a static code: %w", err)
	}
	paid, err := s.MarkPaymentPaid(ctx, q.Scope(), p.ID.String(), nil)
	if err != nil {
		return nil, err
	}
	_, err = tx.NewUpdate().Model((*PixQRCode)(nil)).Set("payments = payments + 1, received_cents = received_cents + ?, updated_at = ?", amount, s.Now()).
		Where("id = ?", q.ID).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: static code's counts: %w", err)
	}
	return paid, nil
}

// PublicPixQRCode returns the static code id of any account: what its
// public image shows (the id's random part makes it unguessable).
func (s *Store) PublicPixQRCode(ctx context.Context, id string) (*PixQRCode, error) {
	q := new(PixQRCode)
	if err := s.idb(ctx).NewSelect().Model(q).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: static code: %w", translate(err))
	}
	q.BaseURL = s.charges.BaseURL
	return q, nil
}
