package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// PaymentLink is a hosted page a seller shares: each payer who opens it
// makes a charge of their own (a fixed amount, or one they choose between
// a minimum and a maximum), giving the data the link collects.
type PaymentLink struct {
	bun.BaseModel `bun:"table:payment_links,alias:pl"`

	ID             string     `bun:"id,pk"`
	AccountID      string     `bun:"account_id"`
	Livemode       bool       `bun:"livemode"`
	Description    string     `bun:"description"`
	AmountCents    *int64     `bun:"amount_cents"`
	MinAmountCents *int64     `bun:"min_amount_cents"`
	MaxAmountCents *int64     `bun:"max_amount_cents"`
	Collect        []string   `bun:"collect,array"`
	MaxUses        *int64     `bun:"max_uses"`
	Status         string     `bun:"status"`
	ExpiresAt      *time.Time `bun:"expires_at"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`

	// Uses are its charges paid, ReceivedCents what they brought in, and
	// Open its charges a payer may still pay (read with it, not stored).
	Uses          int64 `bun:"uses,scanonly"`
	ReceivedCents int64 `bun:"received_cents,scanonly"`
	Open          int64 `bun:"open,scanonly"`

	// BaseURL is where its page is served, and Available whether it takes
	// a payer as it was read (not stored).
	BaseURL   string `bun:"-"`
	Available bool   `bun:"-"`
}

// A payment link's statuses; CollectName, CollectDocument and
// CollectEmail what it may ask of its payers.
const (
	LinkActive      = "active"
	LinkDisabled    = "disabled"
	CollectName     = "name"
	CollectDocument = "document"
	CollectEmail    = "email"
)

// LinkCollectables are what a link may collect, in the order its page asks.
var LinkCollectables = []string{CollectName, CollectDocument, CollectEmail}

// MaxLinkDescription bounds a link's description (its page's title, and
// each charge's description, which the payer's bank shows).
const MaxLinkDescription = 140

// LinkChargeExpiresIn is how long a charge a link made can be paid: the
// payer is on the page, and an unpaid charge holds one of the link's uses
// until it ends.
const LinkChargeExpiresIn = 30 * time.Minute

// Scope is the account and mode the link belongs to.
func (l *PaymentLink) Scope() Scope { return Scope{AccountID: l.AccountID, Livemode: l.Livemode} }

// Collects says whether the link asks its payers for what.
func (l *PaymentLink) Collects(what string) bool { return slices.Contains(l.Collect, what) }

// URL is its hosted page.
func (l *PaymentLink) URL() string { return l.BaseURL + "/pay/link/" + l.ID }

// Refusal is why the link takes no payer at now (nil: it takes one):
// disabled, past its expiry, or every use paid or held by an open charge.
func (l *PaymentLink) Refusal(now time.Time) error {
	switch {
	case l.Status != LinkActive, l.ExpiresAt != nil && !now.Before(*l.ExpiresAt):
		return ErrLinkInactive
	case l.MaxUses != nil && l.Uses >= *l.MaxUses:
		return ErrLinkUsedUp
	case l.MaxUses != nil && l.Uses+l.Open >= *l.MaxUses:
		return ErrLinkBusy
	}
	return nil
}

// LinkStandings are what Standing says.
var LinkStandings = []string{"active", "busy", "used_up", "expired", LinkDisabled}

// Standing is what the link's page does at now, as the dashboard shows it:
// "active", "busy" (its last uses held), "used_up", "expired" or "disabled".
func (l *PaymentLink) Standing(now time.Time) string {
	switch err := l.Refusal(now); {
	case err == nil:
		return "active"
	case l.Status == LinkDisabled:
		return LinkDisabled
	case errors.Is(err, ErrLinkInactive):
		return "expired"
	case errors.Is(err, ErrLinkUsedUp):
		return "used_up"
	}
	return "busy"
}

// Bounds are the least and the most a payer may pay through it.
func (l *PaymentLink) Bounds() (least, most int64) {
	if l.AmountCents != nil {
		return *l.AmountCents, *l.AmountCents
	}
	return *l.MinAmountCents, *l.MaxAmountCents
}

// Refusals of a payer at a link: ErrLinkInactive a link disabled or past
// its expiry, ErrLinkUsedUp one whose uses are all paid, ErrLinkBusy one
// whose last uses are held by charges still payable, ErrLinkAmount an
// amount out of its bounds.
var (
	ErrLinkInactive = errors.New("store: the payment link takes no payment")
	ErrLinkUsedUp   = errors.New("store: the payment link's uses are all paid")
	ErrLinkBusy     = errors.New("store: the payment link's last uses await their payers")
	ErrLinkAmount   = errors.New("store: the amount is out of the payment link's bounds")
)

// NewPaymentLink is a link as asked for, checked by the caller.
type NewPaymentLink struct {
	Description                    string
	AmountCents                    *int64
	MinAmountCents, MaxAmountCents *int64
	Collect                        []string
	MaxUses                        *int64
	ExpiresAt                      *time.Time
}

// CreatePaymentLink makes acct a payment link in its mode.
func (s *Store) CreatePaymentLink(ctx context.Context, acct *Account, livemode bool, in NewPaymentLink) (*PaymentLink, error) {
	now := s.Now()
	l := &PaymentLink{ID: ids.New(ids.PrefixPaymentLink), AccountID: acct.ID, Livemode: livemode, Description: in.Description,
		AmountCents: in.AmountCents, MinAmountCents: in.MinAmountCents, MaxAmountCents: in.MaxAmountCents, Collect: in.Collect,
		MaxUses: in.MaxUses, Status: LinkActive, ExpiresAt: in.ExpiresAt, CreatedAt: now, UpdatedAt: now}
	if l.Collect == nil {
		l.Collect = []string{}
	}
	if _, err := s.idb(ctx).NewInsert().Model(l).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: create payment link: %w", translate(err))
	}
	s.readLink(l)
	return l, nil
}

// linkUses reads a link with its uses: its charges paid, what they brought
// in, and those still payable at now.
// One pass over the link's charges (its index) gives all three.
func linkUses(q *bun.SelectQuery, now time.Time) *bun.SelectQuery {
	return q.ColumnExpr("pl.*, u.uses, u.received_cents, u.open").
		Join(`CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE p.paid_at IS NOT NULL) AS uses,
			coalesce(sum(coalesce(p.amount_paid_cents, p.amount_cents)) FILTER (WHERE p.paid_at IS NOT NULL), 0) AS received_cents,
			count(*) FILTER (WHERE p.status = ? AND p.expires_at > ?) AS open
			FROM payments p WHERE p.payment_link = pl.id) AS u`, StatusPending, now)
}

// readLink completes a link read at now: its page's address and whether
// it takes a payer.
func (s *Store) readLink(l *PaymentLink) {
	l.BaseURL, l.Available = s.charges.BaseURL, l.Refusal(s.Now()) == nil
}

// PaymentLinkOf returns one of the scope's payment links.
func (s *Store) PaymentLinkOf(ctx context.Context, scope Scope, id string) (*PaymentLink, error) {
	l := new(PaymentLink)
	err := linkUses(s.idb(ctx).NewSelect().Model(l), s.Now()).
		Where("pl.id = ? AND pl.account_id = ? AND pl.livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: payment link: %w", translate(err))
	}
	s.readLink(l)
	return l, nil
}

// PublicPaymentLink returns the payment link id of any account: what its
// hosted page shows (the id's random part makes it unguessable).
func (s *Store) PublicPaymentLink(ctx context.Context, id string) (*PaymentLink, error) {
	l := new(PaymentLink)
	if err := linkUses(s.idb(ctx).NewSelect().Model(l), s.Now()).Where("pl.id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: payment link: %w", translate(err))
	}
	s.readLink(l)
	return l, nil
}

// ListPaymentLinks returns one page of the scope's payment links, newest first.
func (s *Store) ListPaymentLinks(ctx context.Context, p IDListParams) ([]PaymentLink, bool, error) {
	var out []PaymentLink
	hasMore, err := listByID(ctx, linkUses(s.idb(ctx).NewSelect().Model(&out), s.Now()), &out, p)
	if err != nil {
		return nil, false, fmt.Errorf("store: list payment links: %w", err)
	}
	for i := range out {
		s.readLink(&out[i])
	}
	return out, hasMore, nil
}

// DeactivatePaymentLink disables the scope's link id: its page takes no
// more payers (charges it made stay payable until they end). changed is
// false for a link disabled already.
func (s *Store) DeactivatePaymentLink(ctx context.Context, scope Scope, id string) (l *PaymentLink, changed bool, err error) {
	res, err := s.idb(ctx).NewUpdate().Model((*PaymentLink)(nil)).Set("status = ?, updated_at = ?", LinkDisabled, s.Now()).
		Where("id = ? AND account_id = ? AND livemode = ? AND status = ?", id, scope.AccountID, scope.Livemode, LinkActive).Exec(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("store: deactivate payment link: %w", err)
	}
	if l, err = s.PaymentLinkOf(ctx, scope, id); err != nil {
		return nil, false, err
	}
	n, _ := res.RowsAffected()
	return l, n > 0, nil
}

// LinkPayer is what a payer gave at a link's page: the amount (a fixed
// link's own) and the data it collects (nil when it collects none).
type LinkPayer struct {
	AmountCents int64
	Customer    *Customer
}

// ChargeThroughLink makes the charge a payer asks for at link id of acct:
// the link locked while its uses are counted (paid, and charges still
// payable), so that max_uses holds against payers at once; the charge is
// built as every charge is (BuildPayment), with the link's description,
// the payer's data and LinkChargeExpiresIn, and names the link. Live, its
// registration at the PSP is queued with it.
func (s *Store) ChargeThroughLink(ctx context.Context, acct *Account, id string, payer LinkPayer) (*Payment, error) {
	var p *Payment
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		ctx = withAmbient(ctx, tx)
		var locked string
		err := tx.NewRaw(`SELECT id FROM payment_links WHERE id = ? AND account_id = ? FOR UPDATE`, id, acct.ID).Scan(ctx, &locked)
		if err != nil {
			return fmt.Errorf("store: payment link: %w", translate(err))
		}
		l := new(PaymentLink)
		if err := linkUses(tx.NewSelect().Model(l), s.Now()).Where("pl.id = ?", id).Scan(ctx); err != nil {
			return fmt.Errorf("store: payment link: %w", err)
		}
		if err := l.Refusal(s.Now()); err != nil {
			return err
		}
		if least, most := l.Bounds(); payer.AmountCents < least || payer.AmountCents > most {
			return ErrLinkAmount
		}
		desc := l.Description
		p, err = s.BuildPayment(acct, l.Livemode, NewPayment{AmountCents: payer.AmountCents, Description: &desc, Customer: payer.Customer,
			Metadata: map[string]string{}, ExpiresIn: LinkChargeExpiresIn})
		if err != nil {
			return err
		}
		p.PaymentLink = &l.ID
		if l.Livemode {
			// In the link's transaction: the payer waits on the payment's
			// page, not here, and its use of the link commits with it.
			_, err = s.createLivePaymentIn(ctx, tx, p, "", nil)
			return err
		}
		if err := s.CreatePayment(ctx, p); err != nil {
			return err
		}
		if _, err := tx.NewRaw(`UPDATE payments SET payment_link = ? WHERE id = ?`, l.ID, p.ID).Exec(ctx); err != nil {
			return fmt.Errorf("store: charge through a link: %w", err)
		}
		return nil
	})
	return p, err
}
