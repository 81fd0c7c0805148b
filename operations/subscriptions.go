package operations

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"payments/pix/calendar"
	"payments/store"
)

// NewSubscription is a subscription as asked for, its input already
// checked against its format (handlers/api): the rules are checked here.
type NewSubscription struct {
	Payer          store.SubscriptionPayer
	Contract       string
	Description    *string
	Interval       string
	StartDate      calendar.Date
	EndDate        *calendar.Date
	AmountCents    *int64
	MaxAmountCents *int64
	RetryPolicy    string
	Journey        string
	Metadata       map[string]string
	// Splits split each cycle's charge (checked as a charge's are, on
	// its amount or its most).
	Splits []store.Split
}

// Refusals of a subscription's rules.
var (
	// ErrFirstPaymentAmount: the journey that pays the first cycle needs a
	// fixed amount to charge.
	ErrFirstPaymentAmount = errors.New("operations: the first-payment journey needs amount_cents")
	// ErrCycleAmount: a variable subscription's cycle needs its amount, at
	// most max_amount_cents; a fixed one's takes none.
	ErrCycleAmount = errors.New("operations: the cycle's amount does not fit the subscription")
)

// SubscriptionProblem is a rule a new subscription breaks: the field, as
// the API names it, and why.
type SubscriptionProblem struct{ Field, Message string }

func (p *SubscriptionProblem) Error() string { return "operations: " + p.Field + ": " + p.Message }

// The payer's bank account as API Pix's solicrec takes it (DadosBancarios).
var (
	ispbPattern          = regexp.MustCompile(`^[0-9A-Z]{8}$`)
	branchPattern        = regexp.MustCompile(`^[0-9]{1,4}$`)
	accountNumberPattern = regexp.MustCompile(`^[0-9]{1,20}$`)
)

// check applies the rules a new subscription follows on today (Brasília),
// whichever door it came through.
func (in NewSubscription) check(today calendar.Date, livemode bool) error {
	switch {
	case livemode && in.Journey == store.JourneyPayerBank && in.Payer.BankAccount == nil:
		return &SubscriptionProblem{"payer.bank_account",
			"payer_bank_request pushes the request to the payer's bank: send payer.bank_account (ispb, branch, number)."}
	case in.Payer.BankAccount != nil && !ispbPattern.MatchString(in.Payer.BankAccount.ISPB):
		return &SubscriptionProblem{"payer.bank_account.ispb", "payer.bank_account.ispb must be the bank's 8-character ISPB (digits and capital letters)."}
	case in.Payer.BankAccount != nil && in.Payer.BankAccount.Branch != "" && !branchPattern.MatchString(in.Payer.BankAccount.Branch):
		return &SubscriptionProblem{"payer.bank_account.branch", "payer.bank_account.branch must be 1 to 4 digits."}
	case in.Payer.BankAccount != nil && !accountNumberPattern.MatchString(in.Payer.BankAccount.Number):
		return &SubscriptionProblem{"payer.bank_account.number", "payer.bank_account.number must be 1 to 20 digits."}
	case strings.TrimSpace(in.Contract) == "" || utf8.RuneCountInString(in.Contract) > store.MaxContract:
		return &SubscriptionProblem{"contract", fmt.Sprintf("contract must be 1 to %d characters.", store.MaxContract)}
	case in.StartDate.Before(today):
		return &SubscriptionProblem{"start_date", fmt.Sprintf("start_date must not be before today (%s, Brasília).", today)}
	case in.EndDate != nil && !in.EndDate.After(in.StartDate):
		return &SubscriptionProblem{"end_date", "end_date must be after start_date."}
	case (in.AmountCents == nil) == (in.MaxAmountCents == nil):
		return &SubscriptionProblem{"amount_cents",
			"Send amount_cents (a fixed amount each cycle) or max_amount_cents (variable amounts, up to it), not both."}
	case in.Journey == store.JourneyFirstPayment && in.AmountCents == nil:
		return ErrFirstPaymentAmount
	}
	return nil
}

// CreateSubscription makes a subscription for acct, awaiting its payer's
// authorization, with its subscription.created event; the QR journeys get
// their code and page, and the journey that pays the first cycle that
// cycle's payment. Live, it is created with the call that registers it at
// the PSP, which then names it and gives the code.
func (o *Operations) CreateSubscription(ctx context.Context, who store.Actor, acct *store.Account, livemode bool, in NewSubscription) (*store.Subscription, error) {
	ctx, err := o.check(ctx, who, store.Scope{AccountID: acct.ID, Livemode: livemode}, rule("CreateSubscription"), acct)
	if err != nil {
		return nil, err
	}
	now := o.Store.Now()
	if err := in.check(calendar.Today(now), livemode); err != nil {
		return nil, err
	}
	if len(in.Splits) > 0 {
		amount := in.AmountCents
		if amount == nil {
			amount = in.MaxAmountCents
		}
		if amount != nil {
			refused, err := o.checkSplits(ctx, acct, store.NewPayment{AmountCents: *amount, Splits: in.Splits})
			if err != nil {
				return nil, err
			}
			if refused != nil {
				return nil, refused
			}
		}
	}
	// Live, the PSP names the recurrence (and makes its location and
	// code) once it has it: the subscription is created until then.
	sub := &store.Subscription{AccountID: acct.ID, Livemode: livemode, Journey: in.Journey, Payer: in.Payer,
		Contract: in.Contract, Description: in.Description, Interval: in.Interval, StartDate: in.StartDate.Time(),
		AmountCents: in.AmountCents, MaxAmountCents: in.MaxAmountCents, RetryPolicy: in.RetryPolicy, Metadata: in.Metadata,
		Splits: in.Splits}
	if in.EndDate != nil {
		end := in.EndDate.Time()
		sub.EndDate = &end
	}
	var first *store.Payment
	if in.Journey == store.JourneyFirstPayment {
		if first, err = o.Store.BuildCycle(acct, sub, *in.AmountCents); err != nil {
			return nil, err
		}
	}
	if livemode {
		sub.Status = store.SubscriptionCreated
		sub.ID = store.NewSubscriptionID()
	} else {
		recID := store.NewRecID(in.RetryPolicy == store.RetryThreeInSeven, now)
		sub.Status, sub.RecID = store.SubscriptionAwaiting, &recID
		if err := o.Store.PrepareSubscription(acct, sub, first); err != nil {
			return nil, err
		}
	}
	if err := o.Store.CreateSubscription(ctx, sub, first); err != nil {
		return nil, err
	}
	return sub, nil
}

// CancelSubscription ends a subscription at its receiver's request: no
// more cycles; the open one is canceled. It cannot be undone (the payer
// would have to authorize again): a person who enrolled a second factor
// proves it again.
func (o *Operations) CancelSubscription(ctx context.Context, who store.Actor, scope store.Scope, id string) (*store.Subscription, error) {
	ctx, err := o.check(ctx, who, scope, rule("CancelSubscription"), nil)
	if err != nil {
		return nil, err
	}
	if err := o.stepUp(who, false); err != nil {
		return nil, err
	}
	return o.Store.CancelSubscription(ctx, &scope, id, store.CanceledByReceiver)
}

// CreateCycle makes the subscription's next cycle now: a variable
// subscription's cycles (their amount, at most max_amount_cents), or a
// fixed one's ahead of the scheduler.
func (o *Operations) CreateCycle(ctx context.Context, who store.Actor, acct *store.Account, scope store.Scope, id string, amount *int64) (*store.Payment, error) {
	ctx, err := o.check(ctx, who, scope, rule("CreateCycle"), acct)
	if err != nil {
		return nil, err
	}
	return o.createCycle(ctx, acct, scope, id, amount)
}

func (o *Operations) createCycle(ctx context.Context, acct *store.Account, scope store.Scope, id string, amount *int64) (*store.Payment, error) {
	sub, err := o.Store.Subscription(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	switch {
	case sub.AmountCents != nil && amount != nil && *amount != *sub.AmountCents,
		sub.MaxAmountCents != nil && (amount == nil || *amount > *sub.MaxAmountCents):
		return nil, ErrCycleAmount
	case sub.AmountCents != nil:
		amount = sub.AmountCents
	}
	p, err := o.Store.BuildCycle(acct, sub, *amount)
	if err != nil {
		return nil, err
	}
	return o.Store.AddCycle(ctx, &scope, id, p)
}

// Cycle outcomes the test helper takes.
const (
	CyclePay                 = "pay"
	CycleInsufficientBalance = "insufficient_balance"
)

// CycleOutcomes lists them.
var CycleOutcomes = []string{CyclePay, CycleInsufficientBalance}

// SimulateAuthorization answers a test subscription's authorization as
// its payer's bank would: approved (on the first-payment journey, the
// first cycle paid with it) or rejected.
func (o *Operations) SimulateAuthorization(ctx context.Context, who store.Actor, scope store.Scope, id string, approve bool) (*store.Subscription, error) {
	if scope.Livemode {
		return nil, ErrTestModeOnly
	}
	ctx, err := o.check(ctx, who, scope, rule("SimulateAuthorization"), nil)
	if err != nil {
		return nil, err
	}
	if approve {
		return o.Store.AuthorizeSubscription(ctx, &scope, id)
	}
	return o.Store.RejectSubscription(ctx, &scope, id)
}

// SimulatePayerCancel cancels a test subscription as its payer would in
// their bank.
func (o *Operations) SimulatePayerCancel(ctx context.Context, who store.Actor, scope store.Scope, id string) (*store.Subscription, error) {
	if scope.Livemode {
		return nil, ErrTestModeOnly
	}
	ctx, err := o.check(ctx, who, scope, rule("SimulatePayerCancel"), nil)
	if err != nil {
		return nil, err
	}
	return o.Store.CancelSubscription(ctx, &scope, id, store.CanceledByPayer)
}

// SimulateCycle settles a test subscription's open cycle as its payer's
// bank would on the attempt's day: paid, or refused for lack of balance
// (retried within the policy, else failed). An active subscription with
// no open cycle gets its next one first (CreateCycle, amount for a
// variable one).
func (o *Operations) SimulateCycle(ctx context.Context, who store.Actor, acct *store.Account, scope store.Scope, id, outcome string,
	amount *int64,
) (p *store.Payment, err error) {
	if scope.Livemode {
		return nil, ErrTestModeOnly
	}
	sub, err := o.Store.Subscription(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	if _, err := o.Store.OpenCycle(ctx, scope, id); errors.Is(err, store.ErrNoOpenCycle) && sub.Status == store.SubscriptionActive {
		if _, err := o.CreateCycle(ctx, who, acct, scope, id, amount); err != nil {
			return nil, err
		}
	} else if err != nil && !errors.Is(err, store.ErrNoOpenCycle) {
		return nil, err
	}
	action := map[string]string{CyclePay: store.EventPaymentPaid, CycleInsufficientBalance: "payment.attempt_failed"}[outcome]
	err = o.simulation(ctx, who, scope, rule("SimulateCycle"), action, func(ctx context.Context) (string, store.Changes, error) {
		sub, err := o.Store.Subscription(ctx, scope, id)
		if err != nil {
			return "", nil, err
		}
		if sub.Status != store.SubscriptionActive {
			// Debits need the payer's authorization.
			return "", nil, &store.InvalidTransitionError{Status: sub.Status}
		}
		open, err := o.Store.OpenCycle(ctx, scope, id)
		if err != nil {
			return "", nil, err
		}
		before := *open.Cycle
		if outcome == CyclePay {
			p, err = o.Store.PayCycle(ctx, scope, open.ID.String())
		} else {
			day := before.DueDate
			if before.NextAttemptDate != nil {
				day = *before.NextAttemptDate
			}
			date, _ := calendar.ParseDate(day)
			p, err = o.Store.FailCycleAttempt(ctx, scope, open.ID.String(), date, "insufficient_balance")
		}
		if err != nil {
			return "", nil, err
		}
		return p.ID.String(), store.Changes{"cycle_status": {before.Status, p.Cycle.Status}, "status": {store.StatusPending, p.Status}}, nil
	})
	return p, err
}
