package operations

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"payments/store"
)

// PaymentLinkInput is a payment link as asked for: a fixed AmountCents, or
// a range the payer chooses in (MinAmountCents and MaxAmountCents, each
// store's bound when left out), what it collects, its uses and expiry.
type PaymentLinkInput struct {
	Description                    string
	AmountCents                    *int64
	MinAmountCents, MaxAmountCents *int64
	Collect                        []string
	MaxUses                        *int64
	ExpiresAt                      *time.Time
}

// MaxLinkUses bounds a link's max_uses.
const MaxLinkUses = 1_000_000

// CreatePaymentLink makes a payment link of scope's account: a hosted page
// that makes a charge per payer. Who needs write permission on payments
// (it takes charges); live mode as for a charge.
func (o *Operations) CreatePaymentLink(ctx context.Context, who store.Actor, scope store.Scope, in PaymentLinkInput) (l *store.PaymentLink, err error) {
	if err := o.checkPaymentLink(&in); err != nil {
		return nil, err
	}
	acct, err := o.Store.Account(ctx, scope.AccountID)
	if err != nil {
		return nil, err
	}
	ctx, err = o.check(ctx, who, scope, rule("CreatePaymentLink"), acct)
	if err != nil {
		return nil, err
	}
	err = o.change(ctx, who, scope, rule("CreatePaymentLink"), "payment_link.created", func(ctx context.Context) (string, store.Changes, error) {
		if l, err = o.Store.CreatePaymentLink(ctx, acct, scope.Livemode, store.NewPaymentLink(in)); err != nil {
			return "", nil, err
		}
		return l.ID, store.Changes{"description": {nil, l.Description}, "amount_cents": {nil, l.AmountCents}}, nil
	})
	return l, err
}

// checkPaymentLink is every rule of a link's input; it fills the range's
// left-out bounds.
func (o *Operations) checkPaymentLink(in *PaymentLinkInput) error {
	var errs InputErrors
	// Each refusal also in a page's words (links.error.<param>).
	bad := func(param, code, format string, args ...any) {
		errs = append(errs, &InputError{Param: param, Code: code, Message: fmt.Sprintf(format, args...), Words: "links.error." + param})
	}
	in.Description = strings.TrimSpace(in.Description)
	switch n := utf8.RuneCountInString(in.Description); {
	case n == 0:
		bad("description", "parameter_missing", "description is required: it titles the link's page and each charge it makes.")
	case n > store.MaxLinkDescription:
		bad("description", "parameter_too_long", "description must be at most %d characters.", store.MaxLinkDescription)
	}
	inBounds := func(v *int64) bool { return *v >= store.MinAmountCents && *v <= store.MaxAmountCents }
	if in.AmountCents != nil {
		if !inBounds(in.AmountCents) {
			bad("amount_cents", "", "amount_cents must be %d to %d.", store.MinAmountCents, store.MaxAmountCents)
		}
		for param, v := range map[string]*int64{"min_amount_cents": in.MinAmountCents, "max_amount_cents": in.MaxAmountCents} {
			if v != nil {
				bad(param, "", "%s is for a link whose payer chooses the amount: leave out amount_cents, or %s.", param, param)
			}
		}
	} else {
		least, most := int64(store.MinAmountCents), int64(store.MaxAmountCents)
		in.MinAmountCents, in.MaxAmountCents = cmpOr(in.MinAmountCents, least), cmpOr(in.MaxAmountCents, most)
		switch {
		case !inBounds(in.MinAmountCents):
			bad("min_amount_cents", "", "min_amount_cents must be %d to %d.", least, most)
		case !inBounds(in.MaxAmountCents):
			bad("max_amount_cents", "", "max_amount_cents must be %d to %d.", least, most)
		case *in.MaxAmountCents < *in.MinAmountCents:
			bad("max_amount_cents", "", "max_amount_cents must be at least min_amount_cents.")
		}
	}
	if msg := collectProblem(in.Collect); msg != "" {
		bad("collect", "", "%s", msg)
	}
	if in.MaxUses != nil && (*in.MaxUses < 1 || *in.MaxUses > MaxLinkUses) {
		bad("max_uses", "", "max_uses must be 1 to %d, or left out for no limit.", MaxLinkUses)
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(o.Store.Now()) {
		bad("expires_at", "", "expires_at must be in the future.")
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// cmpOr is v, or a new def when v is nil.
func cmpOr(v *int64, def int64) *int64 {
	if v == nil {
		return &def
	}
	return v
}

// collectProblem is what is wrong with a link's collect ("": nothing). A
// payer is a name with a CPF or CNPJ, as API Pix's devedor is: the two go
// together, and an e-mail is asked with them.
func collectProblem(collect []string) string {
	for i, c := range collect {
		if !slices.Contains(store.LinkCollectables, c) {
			return fmt.Sprintf("collect takes %s.", strings.Join(store.LinkCollectables, ", "))
		}
		if slices.Contains(collect[:i], c) {
			return fmt.Sprintf("collect names %s twice.", c)
		}
	}
	name, doc := slices.Contains(collect, store.CollectName), slices.Contains(collect, store.CollectDocument)
	switch {
	case name != doc:
		return "collect takes name and document together: a payer is a name with a CPF or CNPJ, as API Pix's devedor."
	case slices.Contains(collect, store.CollectEmail) && !name:
		return "collect takes email with name and document."
	}
	return ""
}

// DeactivatePaymentLink disables a payment link: its page takes no more
// payers; the charges it made stay payable until they end. A link
// disabled already is answered as it is, and not recorded again.
func (o *Operations) DeactivatePaymentLink(ctx context.Context, who store.Actor, scope store.Scope, id string) (l *store.PaymentLink, err error) {
	err = o.record(ctx, who, scope, rule("DeactivatePaymentLink"), "payment_link.deactivated", func(ctx context.Context) (string, store.Changes, error) {
		var changed bool
		if l, changed, err = o.Store.DeactivatePaymentLink(ctx, scope, id); err != nil || !changed {
			return "", nil, err
		}
		return id, statusChange(store.LinkActive, store.LinkDisabled), nil
	})
	return l, err
}

// LinkPayerInput is what a payer gives at a link's page.
type LinkPayerInput struct {
	AmountCents int64
	Customer    *store.Customer
}

// ChargeThroughLink makes the charge a payer asks for at a payment link's
// public page (store.ChargeThroughLink's rules): anyone with the link's
// address may, as anyone may pay a checkout; the link is what proves
// them. A live link of an account whose live mode is off makes nothing.
func (o *Operations) ChargeThroughLink(ctx context.Context, who store.Actor, id string, in LinkPayerInput) (p *store.Payment, err error) {
	l, err := o.Store.PublicPaymentLink(ctx, id)
	if err != nil {
		return nil, err
	}
	acct, err := o.Store.Account(ctx, l.AccountID)
	if err != nil {
		return nil, err
	}
	ctx, err = o.check(ctx, who, l.Scope(), rule("ChargeThroughLink"), acct)
	if err != nil {
		return nil, err
	}
	err = o.audited(ctx, l.Scope(), "payment_link.used", func(ctx context.Context) (string, store.Changes, error) {
		if p, err = o.Store.ChargeThroughLink(ctx, acct, id, store.LinkPayer(in)); err != nil {
			return "", nil, err
		}
		return id, store.Changes{"payment": {nil, p.ID.String()}, "amount_cents": {nil, in.AmountCents}}, nil
	})
	return p, err
}
