// Package operations is every change a caller can ask of the service, one
// method per use case: create, cancel and simulate a charge; refund it, in
// full or in part; withdraw; end a test dispute; create, change, rotate,
// test and delete a webhook, resend and recover its deliveries; create and
// revoke an API key; change a preference. Each method takes who asked (a
// user, an API key, an admin command: store.Actor), checks the rules that
// are not the input's format (live mode, what is refundable or withdrawable,
// key and URL rules, test-mode settlement), makes the change in one
// transaction with its event, ledger lines and PSP call rows (the store's
// write), records who asked with it, and returns the object.
//
// The API's handlers, the dashboard's, the admin commands and the tests'
// helpers all call it: a rule lives here once, and a handler only parses
// and renders. Data flows one way: handlers -> operations -> store.
package operations

import (
	"context"
	"errors"

	"payments/dispatcher"
	"payments/store"
)

// Operations makes the changes against one store.
type Operations struct {
	Store *store.Store
	// LiveMode is whether live mode is on (a PSP is configured): off, every
	// change in live mode is ErrLiveModeOff.
	LiveMode bool
	Webhooks WebhookRules
	// Tester sends a webhook's test events (the dispatcher).
	Tester *dispatcher.Dispatcher
	// BaseURL is the service's public address, for the links e-mails carry.
	BaseURL string
}

// ErrLiveModeOff refuses a change in live mode on a service without a PSP.
var ErrLiveModeOff = errors.New("operations: live mode is off: no payment service provider is configured")

// ErrLiveNotActivated refuses a live change of an account whose live mode
// platform staff have not turned on yet (an account that signed up).
var ErrLiveNotActivated = errors.New("operations: this account's live mode is not activated yet")

// liveAllowed says whether scope may change live money: live mode on, and
// the account's activated (acct when the caller has it loaded).
func (o *Operations) liveAllowed(ctx context.Context, scope store.Scope, acct *store.Account) error {
	if !scope.Livemode {
		return nil
	}
	if !o.LiveMode {
		return ErrLiveModeOff
	}
	if scope.AccountID == "" {
		return nil
	}
	return o.activated(ctx, scope.AccountID, acct)
}

// activated refuses an account (acct, when the caller has it loaded) whose
// live mode platform staff have not turned on: ErrLiveNotActivated.
func (o *Operations) activated(ctx context.Context, accountID string, acct *store.Account) error {
	if acct == nil {
		var err error
		if acct, err = o.Store.Account(ctx, accountID); err != nil {
			return err
		}
	}
	if !acct.LiveEnabled() {
		return ErrLiveNotActivated
	}
	return nil
}

// ErrTestModeOnly refuses a simulation (paying a charge, ending a refund,
// a dispute or a withdrawal by hand) of a live object: only the PSP does that.
var ErrTestModeOnly = errors.New("operations: only test mode can simulate this")

// change is one change asked by who in scope: refused when who lacks
// needs (PermissionError) or in live mode when it is off; else made by fn
// in one transaction with its audit row (action, the object fn names and
// the fields it changed, who asked and through which door). fn returns no
// object id when it changed nothing (an idempotent replay, a duplicate
// notice): nothing is audited then.
func (o *Operations) change(ctx context.Context, who store.Actor, scope store.Scope, needs Permission, action string,
	fn func(ctx context.Context) (objectID string, changes store.Changes, err error),
) error {
	ctx, err := o.check(ctx, who, scope, needs, nil)
	if err != nil {
		return err
	}
	return o.audited(ctx, scope, action, fn)
}

// record is change in any mode: for changes that move no money, which
// live mode being off does not stop. A payment's refused move that still
// changed it (a cancel that finds it past its expiry expires it) keeps
// that change: the refusal is returned after the transaction commits.
func (o *Operations) record(ctx context.Context, who store.Actor, scope store.Scope, needs Permission, action string,
	fn func(ctx context.Context) (objectID string, changes store.Changes, err error),
) error {
	if err := Allow(who, needs); err != nil {
		return err
	}
	return o.audited(store.WithActor(ctx, who), scope, action, fn)
}

// audited makes fn's change in one transaction with its audit row, as
// ctx's actor (change and record have checked who may).
func (o *Operations) audited(ctx context.Context, scope store.Scope, action string,
	fn func(ctx context.Context) (objectID string, changes store.Changes, err error),
) error {
	var refused error
	err := o.Store.InTx(ctx, func(ctx context.Context) error {
		id, changes, err := fn(ctx)
		if invalid := (*store.InvalidTransitionError)(nil); errors.As(err, &invalid) {
			refused = err
			return nil
		}
		if err != nil || id == "" {
			return err
		}
		return o.Store.Audit(ctx, store.AuditRecord{Scope: scope, Action: action, ObjectID: id, Changes: changes})
	})
	if err != nil {
		return err
	}
	return refused
}

// simulating is ctx as who's for a simulation whose store call writes its
// own audit row (a payment's transition: store.PaymentAudit), when who may.
func (o *Operations) simulating(ctx context.Context, who store.Actor, scope store.Scope, needs Permission) (context.Context, error) {
	if scope.Livemode {
		return ctx, ErrTestModeOnly
	}
	return o.check(ctx, who, scope, needs, nil)
}

// simulation is change for what only test mode may make by hand.
func (o *Operations) simulation(ctx context.Context, who store.Actor, scope store.Scope, needs Permission, action string,
	fn func(ctx context.Context) (objectID string, changes store.Changes, err error),
) error {
	ctx, err := o.simulating(ctx, who, scope, needs)
	if err != nil {
		return err
	}
	return o.audited(ctx, scope, action, fn)
}

// check is what a Check* operation (and the creation of a payment) asks
// before it answers: who may, and live mode (acct: the account, when the
// caller has it).
func (o *Operations) check(ctx context.Context, who store.Actor, scope store.Scope, needs Permission, acct *store.Account) (context.Context, error) {
	if err := Allow(who, needs); err != nil {
		return ctx, err
	}
	if err := o.liveAllowed(ctx, scope, acct); err != nil {
		return ctx, err
	}
	return store.WithActor(ctx, who), nil
}

// statusChange is the change of an object's status, for its audit row.
func statusChange(before, after string) store.Changes {
	return store.Changes{"status": {before, after}}
}
