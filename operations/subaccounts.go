package operations

import (
	"context"
	"strings"
	"unicode/utf8"

	"payments/pix"
	"payments/store"
)

// SubaccountInput is a subaccount as asked for: its name, CPF or CNPJ,
// e-mail and the Pix key its payouts go to, each as typed.
type SubaccountInput struct {
	Name, Document, Email, PixKey string
}

// MaxSubaccountName bounds a subaccount's name (what its payers see).
const MaxSubaccountName = 140

// CreateSubaccount makes the platform of scope a subaccount: an account of
// its own (balance, payments, webhooks, events, reports) the platform acts
// for with Payments-Account. A subaccount has none of its own.
func (o *Operations) CreateSubaccount(ctx context.Context, who store.Actor, scope store.Scope, in SubaccountInput) (a *store.Account, err error) {
	clean, err := checkSubaccount(in)
	if err != nil {
		return nil, err
	}
	platform, err := o.Store.Account(ctx, scope.AccountID)
	if err != nil {
		return nil, err
	}
	err = o.record(ctx, who, scope, rule("CreateSubaccount"), "subaccount.created", func(ctx context.Context) (string, store.Changes, error) {
		if a, err = o.Store.CreateSubaccount(ctx, platform, clean); err != nil {
			return "", nil, err
		}
		return a.ID, store.Changes{"name": {nil, a.Name}, "document": {nil, pix.MaskDocument(clean.Document)}}, nil
	})
	return a, err
}

// checkSubaccount is every rule of a subaccount's input, and the input in
// its stored form.
func checkSubaccount(in SubaccountInput) (store.NewSubaccount, error) {
	var errs InputErrors
	bad := func(param, message string) {
		errs = append(errs, &InputError{Param: param, Message: message, Words: "subaccounts.error." + param})
	}
	out := store.NewSubaccount{Name: strings.TrimSpace(in.Name), Email: strings.TrimSpace(in.Email)}
	if n := utf8.RuneCountInString(out.Name); n == 0 || n > MaxSubaccountName {
		bad("name", "name must be 1 to 140 characters: the subaccount's name, as its payers see it.")
	}
	if doc, _, ok := pix.NormalizeDocument(in.Document); ok {
		out.Document = doc
	} else {
		bad("document", "document must be a CPF (11 digits) or a CNPJ (14 characters, digits or letters, as in 12.ABC.345/01DE-35) with valid check digits.")
	}
	if !store.ValidEmail(out.Email) {
		bad("email", "email must be a valid e-mail address.")
	}
	if key, _, ok := pix.NormalizeKey(in.PixKey); ok {
		out.PixKey = key
	} else {
		bad("pix_key", "pix_key must be a CPF or CNPJ with valid check digits, an e-mail, a phone as +5561988880000, or a random key (UUID).")
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}
