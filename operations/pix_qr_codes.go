package operations

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"payments/store"
)

// QRCodeInput is a static code as asked for: its amount (0: the payer
// types it), description and expiry.
type QRCodeInput struct {
	AmountCents int64
	Description *string
	ExpiresAt   *time.Time
}

// CreatePixQRCode makes a static Pix QR code of scope's account, paid any
// number of times (a counter's printed code): a fixed amount or none, a
// description of at most store.MaxQRCodeDescription characters, an expiry
// in the future or none. Who needs write permission on payments (it takes
// charges); live mode as for a charge.
func (o *Operations) CreatePixQRCode(ctx context.Context, who store.Actor, scope store.Scope, in QRCodeInput) (q *store.PixQRCode, err error) {
	if err := o.checkQRCode(&in); err != nil {
		return nil, err
	}
	acct, err := o.Store.Account(ctx, scope.AccountID)
	if err != nil {
		return nil, err
	}
	ctx, err = o.check(ctx, who, scope, rule("CreatePixQRCode"), acct)
	if err != nil {
		return nil, err
	}
	err = o.change(ctx, who, scope, rule("CreatePixQRCode"), "pix_qr_code.created", func(ctx context.Context) (string, store.Changes, error) {
		if q, err = o.Store.CreatePixQRCode(ctx, acct, scope.Livemode, store.NewPixQRCode(in)); err != nil {
			return "", nil, err
		}
		return q.ID, store.Changes{"amount_cents": {nil, in.AmountCents}}, nil
	})
	return q, err
}

// checkQRCode is every rule of a static code's input.
func (o *Operations) checkQRCode(in *QRCodeInput) error {
	var errs InputErrors
	if in.AmountCents < 0 || in.AmountCents > store.MaxAmountCents {
		errs = append(errs, &InputError{Param: "amount_cents", Message: fmt.Sprintf("amount_cents must be 1 to %d, or left out for an amount the payer types.", store.MaxAmountCents),
			Words: "qr_codes.error.amount_cents"})
	}
	if in.Description != nil {
		d := strings.TrimSpace(*in.Description)
		switch {
		case d == "":
			in.Description = nil
		case utf8.RuneCountInString(d) > store.MaxQRCodeDescription:
			errs = append(errs, &InputError{Param: "description", Code: "parameter_too_long",
				Message: fmt.Sprintf("description must be at most %d characters.", store.MaxQRCodeDescription), Words: "qr_codes.error.description"})
		default:
			in.Description = &d
		}
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(o.Store.Now()) {
		errs = append(errs, &InputError{Param: "expires_at", Message: "expires_at must be in the future.", Words: "links.error.expires_at"})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// DeactivatePixQRCode disables a static code: its page and image are
// withdrawn and it takes no more payments. A code printed already can
// still be scanned: a Pix paid into it arrives, as to any key, pays
// nothing and waits with support to be returned. A code disabled already
// is answered as it is, and not recorded again.
func (o *Operations) DeactivatePixQRCode(ctx context.Context, who store.Actor, scope store.Scope, id string) (q *store.PixQRCode, err error) {
	err = o.record(ctx, who, scope, rule("DeactivatePixQRCode"), "pix_qr_code.deactivated", func(ctx context.Context) (string, store.Changes, error) {
		var changed bool
		if q, changed, err = o.Store.DeactivatePixQRCode(ctx, scope, id); err != nil || !changed {
			return "", nil, err
		}
		return id, statusChange(store.QRCodeActive, store.QRCodeDisabled), nil
	})
	return q, err
}

// SimulatePixQRCodePayment pays a test static code amount as a payer's
// bank would: a payment of its own, created and paid.
func (o *Operations) SimulatePixQRCodePayment(ctx context.Context, who store.Actor, scope store.Scope, id string, amount int64) (p *store.Payment, err error) {
	acct, err := o.Store.Account(ctx, scope.AccountID)
	if err != nil {
		return nil, err
	}
	// Recorded on the code (the payment's creation records itself).
	err = o.simulation(ctx, who, scope, rule("SimulatePixQRCodePayment"), "pix_qr_code.paid", func(ctx context.Context) (string, store.Changes, error) {
		if p, err = o.Store.PayPixQRCode(ctx, acct, scope, id, amount); err != nil {
			return "", nil, err
		}
		return id, store.Changes{"payment": {nil, p.ID.String()}, "amount_cents": {nil, amount}}, nil
	})
	return p, err
}
