package store

import (
	"context"
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store/ids"
)

// Payment statuses. pending -> paid | expired | canceled; paid -> refunded.
const (
	StatusPending  = "pending"
	StatusPaid     = "paid"
	StatusExpired  = "expired"
	StatusCanceled = "canceled"
	StatusRefunded = "refunded"
)

// Where a payment's charge stands: made here (test mode), or registered at
// the PSP (live mode), which a live charge must be before it can be paid.
const (
	ChargeLocal       = "local"
	ChargeRegistering = "registering"
	ChargeRegistered  = "registered"
	ChargeFailed      = "failed"
)

// PaymentStatuses lists every status, in lifecycle order.
var PaymentStatuses = []string{StatusPending, StatusPaid, StatusExpired, StatusCanceled, StatusRefunded}

// A payment's rules (DESIGN: Payments): what a merchant may ask for.
const (
	MinAmountCents   = 1
	MaxAmountCents   = 100_000_000 // R$ 1.000.000,00
	MaxDescription   = 500
	MinExpiresIn     = 300
	MaxExpiresIn     = 2_592_000
	DefaultExpiresIn = 86_400
	MaxExternalID    = 128
	MaxCustomerName  = 120
	MaxEmail         = 254
)

// ExternalIDPattern is what an external_id may be: it is also a path
// segment, so only characters a URL path keeps as they are.
var ExternalIDPattern = regexp.MustCompile(`^[A-Za-z0-9._~:-]{1,128}$`)

// PhonePattern is a customer phone once its punctuation is stripped.
var PhonePattern = regexp.MustCompile(`^\+?[0-9]{8,15}$`)

// Customer is the payer as given at creation; document holds digits only.
type Customer struct {
	Name     string  `json:"name"`
	Email    string  `json:"email"`
	Document string  `json:"document"`
	Phone    *string `json:"phone"`
}

// Payment is a PIX charge.
type Payment struct {
	bun.BaseModel `bun:"table:payments"`

	ID            uuid.UUID         `bun:"id,pk,type:uuid"`
	AccountID     string            `bun:"account_id"`
	Livemode      bool              `bun:"livemode"`
	Status        string            `bun:"status"`
	AmountCents   int64             `bun:"amount_cents"`
	Currency      string            `bun:"currency"`
	PaymentMethod string            `bun:"payment_method"`
	Description   *string           `bun:"description"`
	ExternalID    *string           `bun:"external_id"`
	Customer      *Customer         `bun:"customer,type:jsonb"`
	Metadata      map[string]string `bun:"metadata,type:jsonb,notnull"`
	CorrelationID string            `bun:"correlation_id"`
	FeeCents      int64             `bun:"fee_cents"`
	BRCode        string            `bun:"br_code"`
	QRCodeURL     string            `bun:"qr_code_url"`
	CheckoutURL   string            `bun:"checkout_url"`
	CreatedAt     time.Time         `bun:"created_at"`
	UpdatedAt     time.Time         `bun:"updated_at"`
	ExpiresAt     time.Time         `bun:"expires_at"`
	PaidAt        *time.Time        `bun:"paid_at"`
	CanceledAt    *time.Time        `bun:"canceled_at"`
	ExpiredAt     *time.Time        `bun:"expired_at"`
	RefundedAt    *time.Time        `bun:"refunded_at"`
	// ChargeState is where the charge stands (ChargeLocal ...); a live
	// charge has no BR Code until the PSP registered it.
	ChargeState string `bun:"charge_state"`
	// AmountRefundedCents is what the refunds that succeeded gave back to
	// the payer; FeeRefundedCents the part of the fee they returned.
	AmountRefundedCents int64 `bun:"amount_refunded_cents"`
	FeeRefundedCents    int64 `bun:"fee_refunded_cents"`
	// CreationKey and CreationHash are a live creation's Idempotency-Key
	// and its request's hash.
	CreationKey  *string `bun:"creation_key"`
	CreationHash []byte  `bun:"creation_hash"`
	// DueTerms makes the payment a due-date charge (API Pix's cobv): its
	// due date and what paying before or after it changes (pix/cobv).
	// DueDate is its due date again, a column lists filter on.
	DueTerms *cobv.Terms `bun:"due_terms,type:jsonb"`
	DueDate  *time.Time  `bun:"due_date,type:date"`
	// AmountPaidCents is what the payer paid, 0 until paid: the amount,
	// or a due-date charge's amount due on the day it was paid.
	AmountPaidCents int64 `bun:"amount_paid_cents"`
	// PaidOn is the day (Brasília) a due-date charge was paid for: its
	// amount due that day is AmountPaidCents, its parts DueTerms.On that day.
	PaidOn *time.Time `bun:"paid_on,type:date"`
	// SubscriptionID and Cycle make the payment a cycle of a subscription
	// (Pix Automático): its number, due date, status and attempts.
	SubscriptionID *string `bun:"subscription_id"`
	Cycle          *Cycle  `bun:"cycle,type:jsonb"`
	// PixQRCode is the static QR code (pqr_...) a payment into it names.
	PixQRCode *string `bun:"pix_qr_code"`
	// PaymentLink is the payment link (plink_...) that made the charge.
	PaymentLink *string `bun:"payment_link"`
	// Splits send parts of the charge to other accounts of its platform.
	Splits []Split `bun:"splits,type:jsonb"`

	// createdJSON is the JSON its creation froze into its payment.created
	// event, kept so that the creation's answer is that same text rather
	// than the payment written a second time (CreatedJSON).
	createdJSON string `bun:"-"`
}

// CreatedJSON is the payment as its creation answers it: the JSON its
// payment.created event holds, byte for byte. ok is false for a payment
// Store.CreatePayment did not create (read back, or live: answer those
// with MarshalJSON). It is the creation's answer only: the struct is not
// watched for changes made after.
func (p *Payment) CreatedJSON() (body string, ok bool) {
	return p.createdJSON, p.createdJSON != ""
}

// ReceivedCents is what the payment brought in: what was paid, or, before
// it is paid, its amount.
func (p *Payment) ReceivedCents() int64 {
	if p.AmountPaidCents > 0 {
		return p.AmountPaidCents
	}
	return p.AmountCents
}

// PaidParts is what a paid due-date charge's payer paid, part by part (its
// terms on the day it was paid for); ok is false for other payments and for
// due-date charges paid before that day was kept.
func (p *Payment) PaidParts() (b cobv.Breakdown, ok bool) {
	if p.DueTerms == nil || p.PaidOn == nil || p.PaidAt == nil {
		return cobv.Breakdown{}, false
	}
	on := calendar.FromTime(*p.PaidOn)
	return p.DueTerms.On(p.AmountCents, on), true
}

// AmountDue is what the payer owes on date: a due-date charge's
// computation (cobv.Terms.On), or an immediate charge's amount, payable
// while it is pending.
func (p *Payment) AmountDue(date calendar.Date) cobv.Breakdown {
	if p.DueTerms != nil {
		b := p.DueTerms.On(p.AmountCents, date)
		b.Payable = b.Payable && p.Status == StatusPending
		return b
	}
	return cobv.Breakdown{Date: date, AmountCents: p.AmountCents, AmountDueCents: p.AmountCents, Payable: p.Status == StatusPending}
}

// Payable reports whether a payer can pay the charge now: pending, with a
// BR Code (a live charge has one once the PSP registered it).
func (p *Payment) Payable() bool { return p.Status == StatusPending && p.BRCode != "" }

// NetCents is what the payment leaves the merchant: its amount less its
// fee and less what its refunds gave back, each refund having returned its
// share of the fee.
func (p *Payment) NetCents() int64 {
	return p.ReceivedCents() - p.FeeCents - p.AmountRefundedCents + p.FeeRefundedCents
}

// Scope is the account and mode the payment belongs to.
func (p *Payment) Scope() Scope { return Scope{AccountID: p.AccountID, Livemode: p.Livemode} }

// NewPayment is what a merchant asks for, already checked against the rules above.
type NewPayment struct {
	AmountCents int64
	Description *string
	ExternalID  *string
	Customer    *Customer
	Metadata    map[string]string
	// ExpiresIn is how long the charge can be paid (DefaultExpiresIn when zero).
	ExpiresIn time.Duration
	// DueTerms, checked (cobv.Terms.Check), make it a due-date charge: it
	// expires after its last payable day instead.
	DueTerms *cobv.Terms
	// Splits, checked (CheckSplits), send parts of it to other accounts.
	Splits []Split
}

// BuildPayment makes the pending payment acct asks for in its mode: the one
// place a payment is built (id, txid, BR Code, fee, URLs and times), for the
// API, the dashboard, test sends and the load generator. It stores nothing:
// CreatePayment does.
func (s *Store) BuildPayment(acct *Account, livemode bool, in NewPayment) (*Payment, error) {
	at := s.instant()
	p := charge(acct, livemode, in, ids.NewPayment(at), pix.NewTxID(), at.Truncate(time.Millisecond))
	var err error
	code := pix.BRCode{
		Key: s.charges.Receiver.Key, MerchantName: acct.Name, MerchantCity: s.charges.Receiver.City,
		AmountCents: p.AmountCents, TxID: p.CorrelationID, SingleUse: true,
	}
	if p.DueTerms != nil {
		// What a due-date charge costs depends on the day it is paid: the
		// code leaves the amount to the payer's bank (live, the PSP's
		// code points it to the charge, which has the terms).
		code.AmountCents = 0
	}
	p.BRCode, err = code.Encode()
	if err != nil {
		return nil, fmt.Errorf("store: build payment: %w", err)
	}
	page := s.charges.BaseURL + "/pay/" + p.ID.String()
	p.QRCodeURL, p.CheckoutURL = page+"/qr.png", page
	return p, nil
}

// SamplePayment is the payment a "send test" carries, in status: built as
// every payment is, from made-up input, and unmistakable: the nil id, a
// txid that says TEST, no fee, and neither a BR Code to pay nor a page to visit.
func SamplePayment(scope Scope, status string, now time.Time) *Payment {
	desc, ext := "Test event", "test_order"
	p := charge(&Account{ID: scope.AccountID}, scope.Livemode, NewPayment{AmountCents: 1990, Description: &desc,
		ExternalID: &ext, Metadata: map[string]string{"test": "true"}}, uuid.Nil, "TESTTXID0000000000000000000000", now)
	p.Status, p.FeeCents = status, 0
	if status == StatusPaid || status == StatusRefunded {
		p.PaidAt = &now
	}
	if status == StatusRefunded {
		p.RefundedAt = &now
	}
	return p
}

// charge is a pending payment of acct with this id and txid, made at now,
// all but its BR Code and URLs.
func charge(acct *Account, livemode bool, in NewPayment, id uuid.UUID, txid string, now time.Time) *Payment {
	expiresIn := in.ExpiresIn
	if expiresIn == 0 {
		expiresIn = DefaultExpiresIn * time.Second
	}
	metadata := in.Metadata
	if metadata == nil {
		metadata = map[string]string{}
	}
	p := &Payment{
		ID: id, AccountID: acct.ID, Livemode: livemode, Status: StatusPending, AmountCents: in.AmountCents,
		Currency: "BRL", PaymentMethod: "pix", Description: in.Description, ExternalID: in.ExternalID,
		Customer: in.Customer, Metadata: metadata, CorrelationID: txid, FeeCents: acct.Fee(in.AmountCents),
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(expiresIn), ChargeState: ChargeLocal, Splits: in.Splits,
	}
	if in.DueTerms != nil {
		// Payable through its last payable day, in Brasília.
		due := in.DueTerms.Due().Time()
		p.DueTerms, p.DueDate = in.DueTerms, &due
		p.ExpiresAt = in.DueTerms.LastPayableDay().AddDays(1).Start()
	}
	return p
}

// ParsePaymentID accepts only the canonical 36-character UUID form.
func ParsePaymentID(s string) (uuid.UUID, bool) {
	if len(s) != 36 {
		return uuid.UUID{}, false
	}
	id, err := uuid.Parse(s)
	return id, err == nil
}

// PublicPayment finds the payment whose id ref is, in any account, for the
// payer's public pages and support, which address a payment by its
// unguessable id alone. A ref that is no payment id is ErrNotFound.
func (s *Store) PublicPayment(ctx context.Context, ref string) (*Payment, error) {
	id, ok := ParsePaymentID(ref)
	if !ok {
		return nil, fmt.Errorf("store: payment by id %q: %w", ref, ErrNotFound)
	}
	p := new(Payment)
	if err := s.idb(ctx).NewSelect().Model(p).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: payment by id: %w", translate(err))
	}
	return p, nil
}

// PaymentListParams filters and pages a payment list. At most one of
// StartingAfter and EndingBefore is set.
type PaymentListParams struct {
	Scope         Scope
	Status        string
	CreatedGTE    *time.Time
	CreatedLTE    *time.Time
	Limit         int
	StartingAfter *uuid.UUID
	EndingBefore  *uuid.UUID
	// Search finds payments by what wherePaymentMatches reads.
	Search string
	// DueGTE and DueLTE keep the due-date charges due within those days
	// (either alone: from or until it).
	DueGTE, DueLTE *calendar.Date
	// Subscription keeps that subscription's cycles.
	Subscription string
	// PixQRCode keeps the payments into that static code.
	PixQRCode string
	// PaymentLink keeps the charges that payment link made.
	PaymentLink string
}

// listPayments returns one page, newest first, and whether more rows lie
// beyond it in the paging direction. Cursors are ids (UUIDv7, so id order is
// creation order): rows inserted while paging never shift a page, so paging
// neither skips nor repeats a row.
func (s *Store) listPayments(ctx context.Context, params PaymentListParams) ([]Payment, bool, error) {
	term := strings.TrimSpace(params.Search)
	scope := &fuzzyScope{Scope: params.Scope}
	if params.Status == "" && params.CreatedGTE == nil && params.CreatedLTE == nil && params.DueGTE == nil &&
		params.DueLTE == nil && params.Subscription == "" && params.PixQRCode == "" && params.PaymentLink == "" && params.EndingBefore == nil {
		scope.page, scope.before = params.Limit+1, params.StartingAfter
	}
	if term != "" && params.EndingBefore == nil {
		// A name or a word of the description, among the account's
		// recentWalk newest payments first (past the cursor): a word many
		// share fills the page there; the platform-wide indexes would
		// find all of its matches first (BENCHMARKS.md, "At scale").
		page, more, fuzzy, err := s.listPaymentsOnce(ctx, params, term, scope, true)
		if err != nil || !fuzzy || more {
			return page, more, err
		}
		// Fewer than a page there: the answer, if that was all of them.
		var walked int
		if err := s.idb(ctx).NewSelect().TableExpr("(?) AS w", s.recentWindow(ctx, params)).ColumnExpr("count(*)").Scan(ctx, &walked); err != nil {
			return nil, false, fmt.Errorf("store: list payments: %w", err)
		}
		if walked < recentWalk {
			return page, more, nil
		}
	}
	page, more, _, err := s.listPaymentsOnce(ctx, params, term, scope, false)
	return page, more, err
}

// recentWindow is the ids of the recentWalk newest payments of the list
// (past its cursor).
func (s *Store) recentWindow(ctx context.Context, params PaymentListParams) *bun.SelectQuery {
	window := s.idb(ctx).NewSelect().Table("payments").Column("id").
		Where("account_id = ? AND livemode = ?", params.Scope.AccountID, params.Scope.Livemode).
		OrderExpr("id DESC").Limit(recentWalk)
	if params.StartingAfter != nil {
		window = window.Where("id < ?", *params.StartingAfter)
	}
	return window
}

// recentWalk is how many of an account's newest payments a search by
// name or description reads before it asks the indexes.
const recentWalk = 1000

// listPaymentsOnce is one try of listPayments: with recent, a term that
// is no identifier is looked for among the recentWalk newest payments
// only, and fuzzy says it was such a term.
func (s *Store) listPaymentsOnce(ctx context.Context, params PaymentListParams, term string, scope *fuzzyScope, recent bool) (_ []Payment, more, fuzzy bool, _ error) {
	var page []Payment
	q := s.idb(ctx).NewSelect().Model(&page)
	if term == "" {
		// The account as a value the planner does not see (an InitPlan's),
		// so it plans for an account of typical size: given a big one's
		// id, it walked the primary key newest first, expecting the
		// account's share of any stretch of it, and read 179,017 rows of
		// other accounts' newer payments to find 51 (225 ms at 2M; 0.3 ms
		// through the list's index). A search keeps the id it plans
		// its own indexes with.
		q = q.Where("account_id = (SELECT ?::text) AND livemode = ?", params.Scope.AccountID, params.Scope.Livemode)
	} else {
		q = q.Where("account_id = ? AND livemode = ?", params.Scope.AccountID, params.Scope.Livemode)
	}
	if params.Status != "" {
		q = q.Where("status = ?", params.Status)
	}
	if term != "" {
		var err error
		if q, fuzzy, err = s.wherePaymentMatchesOr(ctx, q, term, scope, recent); err != nil {
			return nil, false, false, err
		}
		if !fuzzy && recent {
			// An identifier: the one query below is the answer.
			recent = false
		}
		if recent {
			q = q.Where("id >= (SELECT id FROM (?) AS w ORDER BY id LIMIT 1)", s.recentWindow(ctx, params))
		}
	}
	// A payment's id is the UUIDv7 of its creation (to the millisecond),
	// so a window of creation is also a range of ids, which the list's
	// index (account, mode, id) serves; as a filter on created_at alone it
	// walked the account's payments from the newest down to the window.
	if params.CreatedGTE != nil {
		q = q.Where("created_at >= ? AND id >= ?", *params.CreatedGTE, ids.PaymentFloor(*params.CreatedGTE))
	}
	if params.CreatedLTE != nil {
		q = q.Where("created_at <= ? AND id <= ?", *params.CreatedLTE, ids.PaymentCeiling(*params.CreatedLTE))
	}
	if params.DueGTE != nil {
		q = q.Where("due_date >= ?", params.DueGTE.String())
	}
	if params.PixQRCode != "" {
		q = q.Where("pix_qr_code = ?", params.PixQRCode)
	}
	if params.PaymentLink != "" {
		q = q.Where("payment_link = ?", params.PaymentLink)
	}
	if params.Subscription != "" {
		q = q.Where("subscription_id = ?", params.Subscription)
	}
	if params.DueLTE != nil {
		q = q.Where("due_date <= ?", params.DueLTE.String())
	}
	switch {
	case params.EndingBefore != nil:
		q = q.Where("id > ?", *params.EndingBefore).Order("id ASC")
	case params.StartingAfter != nil:
		q = q.Where("id < ?", *params.StartingAfter).Order("id DESC")
	default:
		q = q.Order("id DESC")
	}
	if err := q.Limit(int64(params.Limit) + 1).Scan(ctx); err != nil {
		return nil, false, false, fmt.Errorf("store: list payments: %w", err)
	}
	hasMore := len(page) > params.Limit
	if hasMore {
		page = page[:params.Limit]
	}
	if params.EndingBefore != nil {
		slices.Reverse(page)
	}
	return page, hasMore, fuzzy, nil
}

// PaymentExists reports whether id is a payment in scope; list cursors must be.
func (s *Store) PaymentExists(ctx context.Context, scope Scope, id uuid.UUID) (bool, error) {
	ok, err := s.idb(ctx).NewSelect().Model((*Payment)(nil)).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("store: payment exists: %w", err)
	}
	return ok, nil
}

// SupportResult is a payment found by support, with its account's name.
type SupportResult struct {
	Payment     `bun:",extend"`
	AccountName string `bun:"account_name,scanonly"`
}

// searchPayments finds payments of any account, in either mode, newest
// first, by what the merchant's list finds them by (wherePaymentMatches).
func (s *Store) searchPayments(ctx context.Context, q string, limit int) ([]SupportResult, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, nil
	}
	var out []SupportResult
	query := s.idb(ctx).NewSelect().Model(&out).ColumnExpr("payment.*").ColumnExpr("a.name AS account_name").
		Join("JOIN accounts AS a ON a.id = payment.account_id")
	query, err := s.wherePaymentMatches(ctx, query, q)
	if err != nil {
		return nil, err
	}
	if err := query.OrderExpr("payment.id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: search payments: %w", err)
	}
	return out, nil
}

// escapeLike makes s match itself in a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

// ValidEmail is the rule a customer's e-mail follows: one plain address
// (no display name) whose domain has a dot.
func ValidEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s || addr.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}
