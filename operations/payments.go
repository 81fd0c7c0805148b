package operations

import (
	"context"
	"fmt"

	"payments/pix/calendar"
	"payments/store"
)

// CreatePayment makes the charge in asks for, of acct in the mode given:
// built by the one builder (store.BuildPayment) and stored with its
// payment.created event. Live, the call that registers it at the PSP is
// queued in the same transaction and the payment is not payable until the
// PSP answers (store.WaitForCharge waits for that); key and hash are the
// request's Idempotency-Key and its hash, when it has one, and replayed
// says the key had already created it.
func (o *Operations) CreatePayment(ctx context.Context, who store.Actor, acct *store.Account, livemode bool,
	in store.NewPayment, key string, hash []byte,
) (p *store.Payment, replayed bool, err error) {
	// The API's hottest write: the store writes its audit row in the
	// creation's own statement (one round trip, batched), not here.
	ctx, err = o.check(ctx, who, store.Scope{AccountID: acct.ID, Livemode: livemode}, rule("CreatePayment"), acct)
	if err != nil {
		return nil, false, err
	}
	if err := o.checkNewPayment(in); err != nil {
		return nil, false, err
	}
	if refused, err := o.checkSplits(ctx, acct, in); err != nil {
		return nil, false, err
	} else if refused != nil {
		return nil, false, refused
	}
	if p, err = o.Store.BuildPayment(acct, livemode, in); err != nil {
		return nil, false, err
	}
	if livemode {
		return o.Store.CreateLivePayment(ctx, p, key, hash)
	}
	return p, false, o.Store.CreatePayment(ctx, p)
}

// InputError refuses a change's input by a rule of the operation: the
// parameter, as the API names it, and why (a 400 at every door).
type InputError struct {
	Param, Message string
	// Code is the API's error code: parameter_invalid when empty.
	Code string
	// Words and Args are the id of the message a page says it with, and
	// its values (name, value pairs); empty where no page asks.
	Words string
	Args  []any
}

func (e *InputError) Error() string { return "operations: " + e.Param + ": " + e.Message }

// InputErrors is every refused input of one request, for a page that shows
// each beside its field; errors.As finds the first, which the API answers.
type InputErrors []*InputError

func (e InputErrors) Error() string { return e[0].Error() }

func (e InputErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, one := range e {
		out[i] = one
	}
	return out
}

// checkNewPayment is every rule of a charge's money, whoever asks: its
// amount within what a payment may be, and a due-date charge's terms
// (CheckDueTerms) for a charge made today in Brasília.
func (o *Operations) checkNewPayment(in store.NewPayment) *InputError {
	if in.AmountCents < store.MinAmountCents || in.AmountCents > store.MaxAmountCents {
		return &InputError{Param: "amount_cents", Message: fmt.Sprintf("amount_cents must be between %d and %d (R$ 1.000.000,00).",
			store.MinAmountCents, store.MaxAmountCents)}
	}
	if in.DueTerms != nil {
		if p := CheckDueTerms(in.DueTerms, in.AmountCents, calendar.Today(o.Store.Now())); p != nil {
			return &InputError{Param: p.Param, Message: p.Message}
		}
	}
	return nil
}

// CancelPayment cancels a pending payment (store.CancelPayment's rules).
// It moves no money, so live mode being off does not stop it.
func (o *Operations) CancelPayment(ctx context.Context, who store.Actor, scope store.Scope, ref string) (*store.Payment, error) {
	if err := Allow(who, rule("CancelPayment")); err != nil {
		return nil, err
	}
	return o.Store.CancelPayment(store.WithActor(ctx, who), scope, ref, &store.PaymentAudit{Action: "payment.canceled"})
}

// SimulatePayment pays a test charge as the PSP would confirm it, as its
// payer would pay it today (Brasília).
func (o *Operations) SimulatePayment(ctx context.Context, who store.Actor, scope store.Scope, ref string) (*store.Payment, error) {
	return o.SimulatePaymentOn(ctx, who, scope, ref, calendar.Today(o.Store.Now()))
}

// SimulatePaymentOn pays a test charge as its payer would on date: a
// due-date charge for what it owes that day, with its fine, interest or
// discount (store.ErrNotPayableOn past its last payable day).
func (o *Operations) SimulatePaymentOn(ctx context.Context, who store.Actor, scope store.Scope, ref string, date calendar.Date) (*store.Payment, error) {
	ctx, err := o.simulating(ctx, who, scope, rule("SimulatePaymentOn"))
	if err != nil {
		return nil, err
	}
	return o.Store.MarkPaymentPaidOn(ctx, scope, ref, date, &store.PaymentAudit{Action: "payment.paid", Also: func(p *store.Payment) store.Changes {
		return store.Changes{"amount_paid_cents": {nil, p.AmountPaidCents}}
	}})
}

// SimulateExpiry expires a pending test charge now.
func (o *Operations) SimulateExpiry(ctx context.Context, who store.Actor, scope store.Scope, ref string) (*store.Payment, error) {
	ctx, err := o.simulating(ctx, who, scope, rule("SimulateExpiry"))
	if err != nil {
		return nil, err
	}
	return o.Store.ExpirePayment(ctx, scope, ref, &store.PaymentAudit{Action: "payment.expired"})
}

// PaymentAnswer is p as an answer to who: whole when who may read payments;
// else (a restricted key that may refund but not read payments) without
// what only payments:read shows, its payer, description and metadata: an
// answer carries only what its asker's permissions may read.
func PaymentAnswer(who store.Actor, p *store.Payment) *store.Payment {
	if p == nil || Allow(who, Read(Payments)) == nil {
		return p
	}
	bare := *p
	bare.Customer, bare.Description, bare.Metadata = nil, nil, map[string]string{}
	return &bare
}
