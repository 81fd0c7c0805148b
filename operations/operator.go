package operations

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"payments/store"
)

// Platform staff's permissions over accounts and people: admin commands
// hold them (support staff's console does not make accounts or people).
const (
	PlatformAccounts Permission = "platform:accounts"
	PlatformUsers    Permission = "platform:users"
)

// NewOperatorAccount is an account an operator makes (`payments accounts
// create`): live at once, unlike a sign-up, with its owner and first key.
type NewOperatorAccount struct {
	Name, Email, Password string
	FeeBPS, FeeFixedCents int
}

// ErrBadFee refuses a fee outside 0..10000 basis points or below zero cents.
var ErrBadFee = errors.New("operations: the fee is 0 to 10000 basis points and at least 0 cents")

// CreateAccount makes an operator's account, its owner (their e-mail by
// the one e-mail rule, their password by the password rule) and its first
// test key, in one transaction, each audited. It returns them and the key's
// secret, shown this once.
func (o *Operations) CreateAccount(ctx context.Context, who store.Actor, in NewOperatorAccount) (acct *store.Account, owner *store.User, key *store.APIKey, secret string, err error) {
	if err := Allow(who, rule("CreateAccount")); err != nil {
		return nil, nil, nil, "", err
	}
	in.Name = strings.TrimSpace(in.Name)
	if n := utf8.RuneCountInString(in.Name); n < 2 || n > 100 {
		return nil, nil, nil, "", ErrBadBusinessName
	}
	if in.Email, err = checkEmail(in.Email); err != nil {
		return nil, nil, nil, "", err
	}
	if in.FeeBPS < 0 || in.FeeBPS > 10_000 || in.FeeFixedCents < 0 {
		return nil, nil, nil, "", ErrBadFee
	}
	if err := store.CheckPassword(in.Password, in.Email, in.Name); err != nil {
		return nil, nil, nil, "", err
	}
	ctx = store.WithActor(ctx, who)
	err = o.Store.InTx(ctx, func(ctx context.Context) error {
		if acct, err = o.Store.CreateAccount(ctx, store.NewAccount{Name: in.Name, Email: in.Email, FeeBPS: in.FeeBPS, FeeFixedCents: in.FeeFixedCents}); err != nil {
			return err
		}
		scope := store.Scope{AccountID: acct.ID}
		if err := o.Store.Audit(ctx, store.AuditRecord{Scope: scope, Action: "account.created", ObjectID: acct.ID,
			Changes: store.Changes{"name": {nil, acct.Name}, "owner": {nil, in.Email}, "fee_bps": {nil, in.FeeBPS}}}); err != nil {
			return err
		}
		if owner, err = o.createUser(ctx, in.Email, in.Password, store.RoleOwner, acct.ID); err != nil {
			return err
		}
		key, secret, err = o.CreateAPIKey(ctx, who, acct.ID, false, store.NewAPIKey{Name: "Chave inicial"})
		return err
	})
	if err != nil {
		return nil, nil, nil, "", err
	}
	return acct, owner, key, secret, nil
}

// ErrSupportHasNoAccount and ErrAccountNeeded refuse a person made in the
// wrong place: support staff see every account, anyone else is a member
// of one.
var (
	ErrSupportHasNoAccount = errors.New("operations: support staff see every account: name no account")
	ErrAccountNeeded       = errors.New("operations: a member of an account needs its account")
)

// CreateUser makes a person an operator names (`payments users create`):
// platform support staff, or a member of an account in one of its roles,
// their e-mail taken as confirmed on the operator's word. Audited.
func (o *Operations) CreateUser(ctx context.Context, who store.Actor, email, password, role, accountID string) (u *store.User, err error) {
	if err := Allow(who, rule("CreateUser")); err != nil {
		return nil, err
	}
	if email, err = checkEmail(email); err != nil {
		return nil, err
	}
	switch {
	case role == store.RoleSupport && accountID != "":
		return nil, ErrSupportHasNoAccount
	case role != store.RoleSupport && accountID == "":
		return nil, ErrAccountNeeded
	case role != store.RoleSupport && !slices.Contains(store.AccountRoles, role):
		return nil, store.ErrUnknownRole
	}
	if err := store.CheckPassword(password, email); err != nil {
		return nil, err
	}
	err = o.Store.InTx(store.WithActor(ctx, who), func(ctx context.Context) error {
		u, err = o.createUser(ctx, email, password, role, accountID)
		return err
	})
	return u, err
}

// createUser makes and audits a person in the ambient transaction.
func (o *Operations) createUser(ctx context.Context, email, password, role, accountID string) (*store.User, error) {
	u, err := o.Store.CreateUser(ctx, email, password, role, accountID)
	if err != nil {
		return nil, err
	}
	err = o.Store.Audit(ctx, store.AuditRecord{Scope: store.Scope{AccountID: accountID}, Action: "user.created", ObjectID: u.ID,
		Changes: store.Changes{"email": {nil, u.Email}, "role": {nil, role}}})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// SetPasswordOf sets the password of the person with that e-mail, on an
// operator's word (the demo's login, reset on every `make run`); every
// session of theirs ends. Audited; the password is never recorded.
func (o *Operations) SetPasswordOf(ctx context.Context, who store.Actor, email, password string) error {
	if err := Allow(who, rule("SetPasswordOf")); err != nil {
		return err
	}
	return o.Store.InTx(store.WithActor(ctx, who), func(ctx context.Context) error {
		u, err := o.Store.UserByEmail(ctx, email)
		if err != nil {
			return fmt.Errorf("operations: set password: %w", err)
		}
		if err := o.Store.SetPassword(ctx, email, password); err != nil {
			return err
		}
		return o.Store.Audit(ctx, store.AuditRecord{Scope: userScope(u), Action: "user.password_set", ObjectID: u.ID,
			Changes: store.Changes{"password": {nil, "(changed)"}}})
	})
}
