package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/pix"
	"payments/pix/calendar"
	"payments/store/apimodel"
	"payments/store/ids"
	"payments/store/jsonw"
)

// A subscription is Pix Automático's recurrence (API Pix's rec): its payer
// authorizes it once, in their bank; each cycle is then a payment of it,
// due on the cycle's date and paid without the payer acting, retried when
// their balance falls short if the subscription allows it.

// Subscription statuses, after API Pix's rec (CRIADA, APROVADA, REJEITADA,
// EXPIRADA, CANCELADA): created (live: not yet at the PSP) ->
// awaiting_authorization -> active | rejected | expired; active ->
// canceled (by the receiver or the payer) | expired (past its end date).
const (
	SubscriptionCreated  = "created"
	SubscriptionAwaiting = "awaiting_authorization"
	SubscriptionActive   = "active"
	SubscriptionRejected = "rejected"
	SubscriptionExpired  = "expired"
	SubscriptionCanceled = "canceled"
)

// SubscriptionStatuses lists every status, in lifecycle order.
var SubscriptionStatuses = []string{SubscriptionCreated, SubscriptionAwaiting, SubscriptionActive, SubscriptionRejected,
	SubscriptionExpired, SubscriptionCanceled}

// Intervals between cycles (API Pix's periodicidade).
var Intervals = []string{"weekly", "monthly", "quarterly", "semiannual", "annual"}

// Journeys: how the payer authorizes (API Pix's jornadas 2, 3 and 1).
const (
	JourneyAuthorizationOnly = "authorization_only"               // a QR whose scan authorizes
	JourneyFirstPayment      = "authorization_with_first_payment" // a QR that pays the first cycle and authorizes
	JourneyPayerBank         = "payer_bank_request"               // a request pushed to the payer's bank
)

// Journeys lists every journey.
var Journeys = []string{JourneyAuthorizationOnly, JourneyFirstPayment, JourneyPayerBank}

// Retry policies (API Pix's politicaRetentativa).
const (
	RetryNone         = "none"
	RetryThreeInSeven = "three_in_seven_days" // up to three more attempts within seven days of the due date
)

// RetryPolicies lists every policy.
var RetryPolicies = []string{RetryNone, RetryThreeInSeven}

// Cancelers of a subscription.
const (
	CanceledByReceiver = "receiver"
	CanceledByPayer    = "payer"
)

// Cycle statuses, after API Pix's cobr and its attempts.
const (
	CycleScheduled = "scheduled"
	CycleRetrying  = "retrying"
	CyclePaid      = "paid"
	CycleFailed    = "failed"
	CycleCanceled  = "canceled"
)

// CycleStatuses lists every cycle status.
var CycleStatuses = []string{CycleScheduled, CycleRetrying, CyclePaid, CycleFailed, CycleCanceled}

// The rules of Pix Automático the service keeps.
const (
	// CycleLeadDays is how long before its due date a cycle is made and
	// sent to the PSP: the rules want the charge 2 to 10 days ahead.
	CycleLeadDays = 10
	// MaxRetries and RetryWindowDays bound three_in_seven_days.
	MaxRetries      = 3
	RetryWindowDays = 7
	// MaxContract and MaxSubscriptionDescription are API Pix's lengths
	// (vinculo.contrato, vinculo.objeto).
	MaxContract                = 35
	MaxSubscriptionDescription = 35
)

// BankAccount is a payer's account at their bank: its participant's ISPB
// (8 characters), branch (optional, up to 4 digits) and number.
type BankAccount struct {
	ISPB   string `json:"ispb"`
	Branch string `json:"branch,omitempty"`
	Number string `json:"number"`
}

// SubscriptionPayer is whom the subscription charges: a name and a CPF or
// CNPJ (digits).
type SubscriptionPayer struct {
	Name     string `json:"name"`
	Document string `json:"document"`
	// BankAccount is where payer_bank_request pushes its request (null
	// when not given).
	BankAccount *BankAccount `json:"bank_account"`
}

// Subscription is a recurrence and where it stands.
type Subscription struct {
	bun.BaseModel `bun:"table:subscriptions"`

	ID             string            `bun:"id,pk"`
	AccountID      string            `bun:"account_id"`
	Livemode       bool              `bun:"livemode"`
	Status         string            `bun:"status"`
	RecID          *string           `bun:"rec_id"`
	Journey        string            `bun:"journey"`
	Payer          SubscriptionPayer `bun:"payer,type:jsonb"`
	Contract       string            `bun:"contract"`
	Description    *string           `bun:"description"`
	Interval       string            `bun:"interval"`
	StartDate      time.Time         `bun:"start_date,type:date"`
	EndDate        *time.Time        `bun:"end_date,type:date"`
	AmountCents    *int64            `bun:"amount_cents"`
	MaxAmountCents *int64            `bun:"max_amount_cents"`
	RetryPolicy    string            `bun:"retry_policy"`
	BRCode         *string           `bun:"br_code"`
	CheckoutURL    *string           `bun:"checkout_url"`
	FirstPaymentID *uuid.UUID        `bun:"first_payment_id,type:uuid"`
	NextCycle      int               `bun:"next_cycle"`
	NextCycleOn    *time.Time        `bun:"next_cycle_on,type:date"`
	CanceledBy     *string           `bun:"canceled_by"`
	// PSPLocID and PSPLocation are the recurrence's location at the PSP
	// (live), SolicRecID the request pushed to the payer's bank, and
	// PSPCheckedAt when the reconciler last read the recurrence.
	PSPLocID     *int64            `bun:"psp_loc_id"`
	PSPLocation  *string           `bun:"psp_location"`
	SolicRecID   *string           `bun:"solicrec_id"`
	PSPCheckedAt *time.Time        `bun:"psp_checked_at"`
	Metadata     map[string]string `bun:"metadata,type:jsonb,notnull"`
	// Splits split each of its cycles' charges (nil: none).
	Splits      []Split    `bun:"splits,type:jsonb"`
	CreatedAt   time.Time  `bun:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at"`
	ActivatedAt *time.Time `bun:"activated_at"`
	EndedAt     *time.Time `bun:"ended_at"`
}

// Scope is the account and mode the subscription belongs to.
func (s *Subscription) Scope() Scope { return Scope{AccountID: s.AccountID, Livemode: s.Livemode} }

// CycleDate is cycle n's due date: the start date moved by n-1 intervals;
// a month without the start's day takes its last day.
func (s *Subscription) CycleDate(n int) calendar.Date {
	start := calendar.FromTime(s.StartDate)
	if s.Interval == "weekly" {
		return start.AddDays(7 * (n - 1))
	}
	months := map[string]int{"monthly": 1, "quarterly": 3, "semiannual": 6, "annual": 12}[s.Interval] * (n - 1)
	return start.AddMonths(months)
}

// past reports whether cycle n falls after the end date.
func (s *Subscription) past(n int) bool {
	return s.EndDate != nil && s.CycleDate(n).After(calendar.FromTime(*s.EndDate))
}

// Cycle is a payment's place in its subscription, as the payment shows it.
type Cycle struct {
	Number          int     `json:"number"`
	DueDate         string  `json:"due_date"`
	Status          string  `json:"status"`
	Attempts        int     `json:"attempts"`
	RetryPolicy     string  `json:"retry_policy"`
	NextAttemptDate *string `json:"next_attempt_date"`
	FailureReason   *string `json:"failure_reason"`
}

// ErrSubscriptionEnded is a cycle asked of a subscription past its end date.
var ErrSubscriptionEnded = errors.New("store: the subscription has no more cycles")

// ErrCycleOpen is a cycle asked while the previous one is still open.
var ErrCycleOpen = errors.New("store: the subscription's current cycle is still open")

// NewRecID makes an API Pix idRec: R, R or N (retries or not), the
// agent's eight characters, the creation date and eleven random
// letters and digits.
func NewRecID(retries bool, at time.Time) string {
	kind := "N"
	if retries {
		kind = "R"
	}
	b := make([]byte, 11)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphanumerics[int(b[i])%len(alphanumerics)]
	}
	return "R" + kind + recAgent + at.In(calendar.Brasilia).Format("20060102") + string(b)
}

// recAgent is the service's eight characters in its rec ids.
const recAgent = "PAYMENTS"

const alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// CreateSubscription stores a new subscription (awaiting its payer's
// authorization in test mode, with its subscription.created event;
// created, until the PSP has it and the event is written, live) and, for the journey that pays the first
// cycle, that cycle's payment (first, built by BuildPayment) with its
// payment.created event.
func (s *Store) CreateSubscription(ctx context.Context, sub *Subscription, first *Payment) error {
	now := s.Now().Truncate(time.Millisecond)
	if sub.ID == "" {
		sub.ID = ids.New(ids.PrefixSubscription)
	}
	sub.CreatedAt, sub.UpdatedAt, sub.NextCycle = now, now, 1
	if sub.Status == "" {
		sub.Status = SubscriptionAwaiting
		if sub.Livemode {
			sub.Status = SubscriptionCreated // until the PSP has it
		}
	}
	if sub.Metadata == nil {
		sub.Metadata = map[string]string{}
	}
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if first != nil {
			sub.FirstPaymentID, sub.NextCycle = &first.ID, 2
		}
		if _, err := tx.NewInsert().Model(sub).Exec(ctx); err != nil {
			return fmt.Errorf("store: create subscription: %w", translate(err))
		}
		// A live subscription is announced once the PSP has it (awaiting
		// its payer, or refused): its event then carries what the API
		// answers, never the created it holds only until then.
		if sub.Status != SubscriptionCreated {
			if err := s.recordEvent(ctx, tx, EventSubscriptionCreated, sub.AccountID, sub.Livemode, sub.ID, sub, now); err != nil {
				return err
			}
		}
		if err := s.auditOn(ctx, tx, AuditRecord{Scope: sub.Scope(), Action: EventSubscriptionCreated, ObjectID: sub.ID,
			Changes: Changes{"status": {nil, sub.Status}}}); err != nil {
			return err
		}
		if sub.Livemode {
			if err := s.queueCall(ctx, tx, &sub.AccountID, CallRecCreate, sub.ID, time.Time{}); err != nil {
				return err
			}
		}
		if first == nil {
			return nil
		}
		return s.insertCycle(ctx, tx, sub, first, 1)
	})
}

// insertCycle stores p as cycle n of sub, with its payment.created event.
// Live, the cycle is registered at the PSP: the first cycle of the journey
// that pays it is a charge (cob) the QR pays, whose payment.created waits
// for the code (SetSubscriptionRec); every other is a recurring charge
// (cobr) the payer's bank debits on its date.
func (s *Store) insertCycle(ctx context.Context, tx bun.Tx, sub *Subscription, p *Payment, n int) error {
	p.SubscriptionID = &sub.ID
	p.Cycle = &Cycle{Number: n, DueDate: sub.CycleDate(n).String(), Status: CycleScheduled, RetryPolicy: sub.RetryPolicy}
	firstCharge := sub.Livemode && sub.FirstPaymentID != nil && *sub.FirstPaymentID == p.ID
	if sub.Livemode {
		p.BRCode, p.QRCodeURL, p.ChargeState = "", "", ChargeRegistering
	}
	if _, err := tx.NewInsert().Model(p).Exec(ctx); err != nil {
		return fmt.Errorf("store: create cycle: %w", translate(err))
	}
	switch {
	case firstCharge:
		if err := s.queueCall(ctx, tx, &p.AccountID, CallCobCreate, p.ID.String(), time.Time{}); err != nil {
			return err
		}
	case sub.Livemode:
		if err := s.queueCall(ctx, tx, &p.AccountID, CallCobRCreate, p.ID.String(), time.Time{}); err != nil {
			return err
		}
		fallthrough
	default:
		if err := s.recordEvent(ctx, tx, EventPaymentCreated, p.AccountID, p.Livemode, p.ID.String(), p, p.CreatedAt); err != nil {
			return err
		}
	}
	return s.auditOn(ctx, tx, AuditRecord{Scope: p.Scope(), Action: EventPaymentCreated, ObjectID: p.ID.String(),
		Changes: Changes{"status": {nil, p.Status}, "amount_cents": {nil, p.AmountCents}, "subscription": {nil, sub.ID}}})
}

// Subscription reads the subscription id of scope; another's is ErrNotFound.
func (s *Store) Subscription(ctx context.Context, scope Scope, id string) (*Subscription, error) {
	sub := new(Subscription)
	err := s.idb(ctx).NewSelect().Model(sub).Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: subscription: %w", translate(err))
	}
	return sub, nil
}

// listSubscriptions returns one page of scope's subscriptions, newest
// first, after the cursor (an id) when given, and whether more follow.
func (s *Store) listSubscriptions(ctx context.Context, scope Scope, limit int, startingAfter string) ([]Subscription, bool, error) {
	var page []Subscription
	q := s.idb(ctx).NewSelect().Model(&page).Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode)
	if startingAfter != "" {
		q = q.Where("id < ?", startingAfter)
	}
	if err := q.Order("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("store: list subscriptions: %w", err)
	}
	if len(page) > limit {
		return page[:limit], true, nil
	}
	return page, false, nil
}

// subscriptionChange mutates a locked subscription at now, in tx, and
// names the event it causes ("" for none).
type subscriptionChange func(ctx context.Context, tx bun.Tx, sub *Subscription, now time.Time) (event string, err error)

// changeSubscription locks the subscription id (of scope, or of any
// account when scope is nil), applies change and saves it with its event
// and audit row, in one transaction.
func (s *Store) changeSubscription(ctx context.Context, scope *Scope, id string, change subscriptionChange) (*Subscription, error) {
	sub := new(Subscription)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model(sub).Where("id = ?", id).For("UPDATE")
		if scope != nil {
			q = q.Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode)
		}
		if err := q.Scan(ctx); err != nil {
			return fmt.Errorf("store: subscription: %w", translate(err))
		}
		before := sub.Status
		now := s.Now()
		event, err := change(ctx, tx, sub, now)
		if err != nil || event == "" {
			return err
		}
		sub.UpdatedAt = now
		if _, err := tx.NewUpdate().Model(sub).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: save subscription: %w", err)
		}
		if before == SubscriptionCreated {
			// Ended before the PSP had it (refused, or canceled): it is
			// announced now, as it now is.
			if err := s.recordEvent(ctx, tx, EventSubscriptionCreated, sub.AccountID, sub.Livemode, sub.ID, sub, now); err != nil {
				return err
			}
		}
		if err := s.recordEvent(ctx, tx, event, sub.AccountID, sub.Livemode, sub.ID, sub, now); err != nil {
			return err
		}
		changes := Changes{"status": {before, sub.Status}}
		if sub.CanceledBy != nil {
			changes["canceled_by"] = [2]any{nil, *sub.CanceledBy}
		}
		return s.auditOn(ctx, tx, AuditRecord{Scope: sub.Scope(), Action: event, ObjectID: sub.ID, Changes: changes})
	})
	if err != nil {
		return nil, err
	}
	return sub, nil
}

// AuthorizeSubscription records that the payer authorized the
// subscription: it becomes active and its cycles are made from then on; on
// the journey that pays the first cycle, that cycle is paid too.
func (s *Store) AuthorizeSubscription(ctx context.Context, scope *Scope, id string) (*Subscription, error) {
	return s.changeSubscription(ctx, scope, id, func(ctx context.Context, tx bun.Tx, sub *Subscription, now time.Time) (string, error) {
		switch sub.Status {
		case SubscriptionActive:
			return "", nil
		case SubscriptionCreated, SubscriptionAwaiting:
		default:
			return "", &InvalidTransitionError{Status: sub.Status}
		}
		sub.Status, sub.ActivatedAt = SubscriptionActive, &now
		next := sub.CycleDate(sub.NextCycle).Time()
		sub.NextCycleOn = &next
		if sub.FirstPaymentID != nil && !sub.Livemode {
			// Test mode's approval stands for the QR composto's payment;
			// live, its Pix pays the first cycle (RecordPixNotification).
			p, err := lockPaymentWhere(ctx, tx, "id = $1", sub.FirstPaymentID.String())
			if err != nil {
				return "", err
			}
			if _, err := s.apply(ctx, tx, p, payCycle); err != nil {
				return "", err
			}
		}
		return EventSubscriptionActivated, nil
	})
}

// RejectSubscription records that the payer refused the authorization; a
// first cycle waiting for it is canceled.
func (s *Store) RejectSubscription(ctx context.Context, scope *Scope, id string) (*Subscription, error) {
	return s.changeSubscription(ctx, scope, id, func(ctx context.Context, tx bun.Tx, sub *Subscription, now time.Time) (string, error) {
		switch sub.Status {
		case SubscriptionRejected:
			return "", nil
		case SubscriptionCreated, SubscriptionAwaiting:
		default:
			return "", &InvalidTransitionError{Status: sub.Status}
		}
		sub.Status, sub.EndedAt = SubscriptionRejected, &now
		return EventSubscriptionRejected, s.cancelOpenCycles(ctx, tx, sub)
	})
}

// CancelSubscription ends the subscription, by its receiver or its payer:
// no more cycles are made and the open ones are canceled. Canceling a
// canceled subscription returns it unchanged.
func (s *Store) CancelSubscription(ctx context.Context, scope *Scope, id, by string) (*Subscription, error) {
	return s.changeSubscription(ctx, scope, id, func(ctx context.Context, tx bun.Tx, sub *Subscription, now time.Time) (string, error) {
		switch sub.Status {
		case SubscriptionCanceled:
			return "", nil
		case SubscriptionCreated, SubscriptionAwaiting, SubscriptionActive:
		default:
			return "", &InvalidTransitionError{Status: sub.Status}
		}
		sub.Status, sub.CanceledBy, sub.EndedAt, sub.NextCycleOn = SubscriptionCanceled, &by, &now, nil
		if sub.Livemode && by == CanceledByReceiver && sub.RecID != nil {
			if err := s.queueCall(ctx, tx, &sub.AccountID, CallRecCancel, sub.ID, time.Time{}); err != nil {
				return "", err
			}
		}
		return EventSubscriptionCanceled, s.cancelOpenCycles(ctx, tx, sub)
	})
}

// cancelOpenCycles cancels the subscription's pending cycles, each with
// its payment.canceled event.
func (s *Store) cancelOpenCycles(ctx context.Context, tx bun.Tx, sub *Subscription) error {
	var open []uuid.UUID
	err := tx.NewSelect().Model((*Payment)(nil)).Column("id").
		Where("subscription_id = ? AND status = ?", sub.ID, StatusPending).Scan(ctx, &open)
	if err != nil {
		return fmt.Errorf("store: open cycles: %w", err)
	}
	for _, id := range open {
		p, err := lockPaymentWhere(ctx, tx, "id = $1", id.String())
		if err != nil {
			return err
		}
		if _, err := s.apply(ctx, tx, p, func(p *Payment, now time.Time) (string, error) {
			if p.Status != StatusPending {
				return "", nil
			}
			p.Status, p.CanceledAt, p.Cycle.Status, p.Cycle.NextAttemptDate = StatusCanceled, &now, CycleCanceled, nil
			return EventPaymentCanceled, nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// payCycle is the change a cycle paid makes: markPaid (which marks the cycle paid).
var payCycle = markPaid

// AddCycle stores p (built by BuildPayment) as the next cycle of the
// subscription id of scope: active, past no end date, its previous cycle
// settled. The subscription's next cycle moves on.
func (s *Store) AddCycle(ctx context.Context, scope *Scope, id string, p *Payment) (*Payment, error) {
	_, err := s.changeSubscription(ctx, scope, id, func(ctx context.Context, tx bun.Tx, sub *Subscription, now time.Time) (string, error) {
		if sub.Status != SubscriptionActive {
			return "", &InvalidTransitionError{Status: sub.Status}
		}
		if sub.past(sub.NextCycle) {
			return "", ErrSubscriptionEnded
		}
		open, err := tx.NewSelect().Model((*Payment)(nil)).Where("subscription_id = ? AND status = ?", sub.ID, StatusPending).Exists(ctx)
		if err != nil {
			return "", fmt.Errorf("store: open cycle: %w", err)
		}
		if open {
			return "", ErrCycleOpen
		}
		due := sub.CycleDate(sub.NextCycle)
		p.ExpiresAt = lastAttemptDay(due, sub.RetryPolicy).AddDays(1).Start()
		if err := s.insertCycle(ctx, tx, sub, p, sub.NextCycle); err != nil {
			return "", err
		}
		sub.NextCycle++
		next := sub.CycleDate(sub.NextCycle).Time()
		sub.NextCycleOn = &next
		_, err = tx.NewUpdate().Model(sub).Column("next_cycle", "next_cycle_on", "updated_at").WherePK().Exec(ctx)
		if err != nil {
			return "", fmt.Errorf("store: next cycle: %w", err)
		}
		return "", nil // the cycle's own event (payment.created) says it
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// lastAttemptDay is the last day a cycle due on due can be paid: the due
// date, or seven days after it when retries are allowed.
func lastAttemptDay(due calendar.Date, policy string) calendar.Date {
	if policy == RetryThreeInSeven {
		return due.AddDays(RetryWindowDays)
	}
	return due
}

// FailCycleAttempt records that a cycle's debit failed on date (the
// payer's balance fell short): with retries left within the policy the
// cycle is retried the next day (payment.retry_scheduled); otherwise it
// failed for good, its payment ends expired (payment.failed).
func (s *Store) FailCycleAttempt(ctx context.Context, scope Scope, ref string, date calendar.Date, reason string) (*Payment, error) {
	return s.transition(ctx, scope, ref, nil, func(p *Payment, now time.Time) (string, error) {
		if p.Cycle == nil || p.Status != StatusPending {
			status := p.Status
			if p.Cycle == nil {
				status = "not_a_cycle"
			}
			return "", &InvalidTransitionError{Status: status}
		}
		return failAttempt(p, now, date, reason), nil
	})
}

// failAttempt counts a refused debit of the pending cycle p on date: the
// cycle is retried the next day while the policy allows
// (payment.retry_scheduled), or it failed for good (payment.failed).
func failAttempt(p *Payment, now time.Time, date calendar.Date, reason string) string {
	p.Cycle.Attempts++
	p.Cycle.FailureReason = &reason
	due, _ := calendar.ParseDate(p.Cycle.DueDate)
	// The next day, or today when the refusal is learned late (a retry
	// is never asked for a day gone by).
	next := date.AddDays(1)
	if today := calendar.Today(now); next.Before(today) {
		next = today
	}
	if p.Cycle.RetryPolicy == RetryThreeInSeven && p.Cycle.Attempts <= MaxRetries && !next.After(due.AddDays(RetryWindowDays)) {
		nextDate := next.String()
		p.Cycle.Status, p.Cycle.NextAttemptDate = CycleRetrying, &nextDate
		return EventPaymentRetryScheduled
	}
	p.Status, p.ExpiredAt, p.Cycle.Status, p.Cycle.NextAttemptDate = StatusExpired, &now, CycleFailed, nil
	return EventPaymentFailed
}

// PayCycle records that a cycle was paid (test mode: the payer's bank
// debited it): payment.paid, the cycle paid.
func (s *Store) PayCycle(ctx context.Context, scope Scope, ref string) (*Payment, error) {
	return s.transition(ctx, scope, ref, nil, func(p *Payment, now time.Time) (string, error) {
		if p.Cycle == nil {
			return "", &InvalidTransitionError{Status: "not_a_cycle"}
		}
		return payCycle(p, now)
	})
}

// ErrNoOpenCycle is a cycle settled when the subscription has none open.
var ErrNoOpenCycle = errors.New("store: the subscription has no open cycle")

// OpenCycle is the pending cycle of scope's subscription subID (ErrNoOpenCycle).
func (s *Store) OpenCycle(ctx context.Context, scope Scope, subID string) (*Payment, error) {
	p, err := s.scanPayment(ctx, `SELECT `+paymentColumns+` FROM payments
		WHERE subscription_id = $1 AND account_id = $2 AND livemode = $3 AND status = 'pending'
		ORDER BY id DESC LIMIT 1`, subID, scope.AccountID, scope.Livemode)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("store: subscription %s: %w", subID, ErrNoOpenCycle)
	}
	return p, err
}

// SubscriptionCycles lists the subscription's last 100 cycles, the latest first.
func (s *Store) SubscriptionCycles(ctx context.Context, scope Scope, subID string) ([]Payment, error) {
	var cycles []Payment
	err := s.idb(ctx).NewSelect().Model(&cycles).
		Where("subscription_id = ? AND account_id = ? AND livemode = ?", subID, scope.AccountID, scope.Livemode).
		OrderExpr("(cycle->>'number')::int DESC").Limit(100).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: subscription cycles: %w", err)
	}
	return cycles, nil
}

// BuildCycle builds a cycle's payment of amount for sub, by the one
// builder, its contract (and description) as the payment's description and
// its payer as the payment's customer.
func (s *Store) BuildCycle(acct *Account, sub *Subscription, amount int64) (*Payment, error) {
	description := sub.Contract
	if sub.Description != nil {
		description = *sub.Description + " (" + sub.Contract + ")"
	}
	// The subscriber is the cycle's customer, as a charge's payer is (no
	// e-mail: a subscription takes none).
	payer := &Customer{Name: sub.Payer.Name, Document: sub.Payer.Document}
	return s.BuildPayment(acct, sub.Livemode, NewPayment{AmountCents: amount, Description: &description, Metadata: map[string]string{},
		Customer: payer, Splits: sub.Splits})
}

// MakeDueCycles makes the next cycle of up to limit active fixed-amount
// subscriptions due within CycleLeadDays of today, and ends those past
// their end date; it returns how many it changed. A subscription whose
// previous cycle is still open (being retried) waits for it.
func (s *Store) MakeDueCycles(ctx context.Context, limit int) (int, error) {
	today := calendar.Today(s.Now())
	var due []Subscription
	err := s.idb(ctx).NewSelect().Model(&due).
		Where("status = ? AND next_cycle_on <= ?", SubscriptionActive, today.AddDays(CycleLeadDays).String()).
		Where("amount_cents IS NOT NULL OR next_cycle_on > end_date").
		Order("next_cycle_on").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: subscriptions due: %w", err)
	}
	changed := 0
	for i := range due {
		sub := &due[i]
		if sub.past(sub.NextCycle) {
			if _, err := s.ExpireSubscription(ctx, sub.ID); err != nil {
				return changed, err
			}
			changed++
			continue
		}
		acct, err := s.Account(ctx, sub.AccountID)
		if err != nil {
			return changed, err
		}
		p, err := s.BuildCycle(acct, sub, *sub.AmountCents)
		if err != nil {
			return changed, err
		}
		switch _, err := s.AddCycle(WithActor(ctx, ActorSystem), nil, sub.ID, p); {
		case errors.Is(err, ErrCycleOpen):
		case err != nil:
			return changed, err
		default:
			changed++
		}
	}
	return changed, nil
}

// ExpireSubscription ends an active subscription past its end date.
func (s *Store) ExpireSubscription(ctx context.Context, id string) (*Subscription, error) {
	return s.changeSubscription(ctx, nil, id, func(_ context.Context, _ bun.Tx, sub *Subscription, now time.Time) (string, error) {
		if sub.Status != SubscriptionActive || !sub.past(sub.NextCycle) {
			return "", nil
		}
		sub.Status, sub.EndedAt, sub.NextCycleOn = SubscriptionExpired, &now, nil
		return EventSubscriptionExpired, nil
	})
}

// MarshalJSON renders the subscription as the API shows it.
func (s *Subscription) MarshalJSON() ([]byte, error) {
	date := func(t *time.Time) *string {
		if t == nil {
			return nil
		}
		d := calendar.FromTime(*t).String()
		return &d
	}
	var firstPayment *string
	if s.FirstPaymentID != nil {
		id := s.FirstPaymentID.String()
		firstPayment = &id
	}
	start := calendar.FromTime(s.StartDate).String()
	return json.Marshal(struct {
		ID             string            `json:"id"`
		Object         string            `json:"object"`
		Livemode       bool              `json:"livemode"`
		Status         string            `json:"status"`
		Journey        string            `json:"journey"`
		Payer          SubscriptionPayer `json:"payer"`
		Contract       string            `json:"contract"`
		Description    *string           `json:"description"`
		Interval       string            `json:"interval"`
		StartDate      string            `json:"start_date"`
		EndDate        *string           `json:"end_date"`
		AmountCents    *int64            `json:"amount_cents"`
		MaxAmountCents *int64            `json:"max_amount_cents"`
		RetryPolicy    string            `json:"retry_policy"`
		RecID          *string           `json:"rec_id"`
		BRCode         *string           `json:"br_code"`
		CheckoutURL    *string           `json:"checkout_url"`
		FirstPayment   *string           `json:"first_payment"`
		NextCycleDate  *string           `json:"next_cycle_date"`
		CanceledBy     *string           `json:"canceled_by"`
		Metadata       map[string]string `json:"metadata"`
		CreatedAt      string            `json:"created_at"`
		UpdatedAt      string            `json:"updated_at"`
		ActivatedAt    *string           `json:"activated_at"`
		EndedAt        *string           `json:"ended_at"`
		Splits         []apimodel.Split  `json:"splits"`
	}{s.ID, "subscription", s.Livemode, s.Status, s.Journey, s.Payer, s.Contract, s.Description, s.Interval, start,
		date(s.EndDate), s.AmountCents, s.MaxAmountCents, s.RetryPolicy, s.RecID, s.BRCode, s.CheckoutURL, firstPayment,
		date(s.NextCycleOn), s.CanceledBy, s.Metadata, jsonw.FormatTime(s.CreatedAt), jsonw.FormatTime(s.UpdatedAt),
		jsonw.FormatTimePtr(s.ActivatedAt), jsonw.FormatTimePtr(s.EndedAt), (&Payment{Splits: s.Splits}).apiSplits()})
}

// PrepareSubscription gives a new subscription of acct its id and, for the
// journeys that show the payer a QR, the code and the page: the
// recurrence's location in the code's field 80, on the first cycle's
// charge (first) when the QR also pays it. Test mode's location is the
// service's own page for the recurrence; live, the PSP's.
func (s *Store) PrepareSubscription(acct *Account, sub *Subscription, first *Payment) error {
	sub.ID = NewSubscriptionID()
	if sub.Journey == JourneyPayerBank {
		return nil
	}
	page := s.charges.BaseURL + "/pay/subscriptions/" + sub.ID
	location := strings.TrimPrefix(strings.TrimPrefix(page, "https://"), "http://")
	code := pix.BRCode{Key: s.charges.Receiver.Key, MerchantName: acct.Name, MerchantCity: s.charges.Receiver.City,
		RecurrenceLocation: location}
	if first != nil {
		code.AmountCents, code.TxID, code.SingleUse = first.AmountCents, first.CorrelationID, true
	}
	encoded, err := code.Encode()
	if err != nil {
		return fmt.Errorf("store: subscription code: %w", err)
	}
	sub.BRCode, sub.CheckoutURL = &encoded, &page
	if first != nil {
		first.BRCode = encoded
	}
	return nil
}

// NewSubscriptionID makes a subscription's id.
func NewSubscriptionID() string { return ids.New(ids.PrefixSubscription) }

// SampleSubscription is the subscription a "send test" of eventType
// carries: made up, unmistakable (sub_test, a rec id of zeros).
func SampleSubscription(scope Scope, eventType string, now time.Time) *Subscription {
	amount, description := int64(4990), "Test subscription"
	start := calendar.Today(now).Time()
	sub := &Subscription{ID: "sub_test", AccountID: scope.AccountID, Livemode: scope.Livemode, Status: SubscriptionAwaiting,
		RecID: ptr("RN" + recAgent + "20260101" + "00000000000"), Journey: JourneyAuthorizationOnly,
		Payer: SubscriptionPayer{Name: "Test payer", Document: "00000000000"}, Contract: "test_contract", Description: &description,
		Interval: "monthly", StartDate: start, AmountCents: &amount, RetryPolicy: RetryNone, NextCycle: 1,
		Metadata: map[string]string{"test": "true"}, CreatedAt: now, UpdatedAt: now}
	switch eventType {
	case EventSubscriptionActivated:
		sub.Status, sub.ActivatedAt, sub.NextCycleOn = SubscriptionActive, &now, &start
	case EventSubscriptionRejected:
		sub.Status, sub.EndedAt = SubscriptionRejected, &now
	case EventSubscriptionCanceled:
		by := CanceledByReceiver
		sub.Status, sub.EndedAt, sub.CanceledBy = SubscriptionCanceled, &now, &by
	case EventSubscriptionExpired:
		sub.Status, sub.EndedAt = SubscriptionExpired, &now
	}
	return sub
}

// SampleCycle is the cycle of a sample payment of a retry_scheduled or
// failed event.
func SampleCycle(eventType string, now time.Time) (*string, *Cycle) {
	sub, reason := "sub_test", "insufficient_balance"
	today := calendar.Today(now)
	c := &Cycle{Number: 2, DueDate: today.AddDays(-1).String(), Status: CycleFailed, Attempts: MaxRetries + 1,
		RetryPolicy: RetryThreeInSeven, FailureReason: &reason}
	if eventType == EventPaymentRetryScheduled {
		next := today.AddDays(1).String()
		c.Status, c.Attempts, c.NextAttemptDate = CycleRetrying, 1, &next
	}
	return &sub, c
}

// PublicSubscription finds the subscription id in any account, for the
// payer's page, which addresses it by its unguessable id alone.
func (s *Store) PublicSubscription(ctx context.Context, id string) (*Subscription, error) {
	sub := new(Subscription)
	if err := s.idb(ctx).NewSelect().Model(sub).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: subscription: %w", translate(err))
	}
	return sub, nil
}

// SupportSubscription is a subscription found by support, with its
// account's name.
type SupportSubscription struct {
	Subscription `bun:",extend"`
	AccountName  string `bun:"account_name,scanonly"`
}

// searchSubscriptions finds subscriptions of any account, newest first, by
// their payer's CPF or CNPJ (punctuation or not), their contract (any
// case), their id or their rec id.
func (s *Store) searchSubscriptions(ctx context.Context, q string, limit int) ([]SupportSubscription, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, nil
	}
	var out []SupportSubscription
	query := s.idb(ctx).NewSelect().Model(&out).ColumnExpr("subscription.*").ColumnExpr("a.name AS account_name").
		Join("JOIN accounts AS a ON a.id = subscription.account_id")
	if digits, _, ok := pix.NormalizeDocument(q); ok {
		query = query.Where("subscription.payer->>'document' = ?", digits)
	} else {
		query = query.Where("lower(subscription.contract) = lower(?) OR subscription.id = ? OR subscription.rec_id = ?", q, q, q)
	}
	if err := query.OrderExpr("subscription.id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: search subscriptions: %w", err)
	}
	return out, nil
}
