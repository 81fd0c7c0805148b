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
	Webhooks Webhooks
	// Tester sends a webhook's test events (the dispatcher).
	Tester *dispatcher.Dispatcher
}

// ErrLiveModeOff refuses a change in live mode on a service without a PSP.
var ErrLiveModeOff = errors.New("operations: live mode is off: no payment service provider is configured")

// ErrTestModeOnly refuses a simulation (paying a charge, ending a refund,
// a dispute or a withdrawal by hand) of a live object: only the PSP does that.
var ErrTestModeOnly = errors.New("operations: only test mode can simulate this")

// as returns ctx for a change in scope asked by who: refused in live mode
// when it is off, else carrying who asked for the store to record.
func (o *Operations) as(ctx context.Context, who store.Actor, scope store.Scope) (context.Context, error) {
	if scope.Livemode && !o.LiveMode {
		return ctx, ErrLiveModeOff
	}
	return store.WithActor(ctx, who), nil
}

// simulation is as for a change only test mode may make by hand.
func (o *Operations) simulation(ctx context.Context, who store.Actor, scope store.Scope) (context.Context, error) {
	if scope.Livemode {
		return ctx, ErrTestModeOnly
	}
	return o.as(ctx, who, scope)
}

// audited runs change in one transaction with an audit_log row saying who
// did action to the object change returns the id of: for the changes that
// make no event (an event row says who asked on its own).
func (o *Operations) audited(ctx context.Context, scope store.Scope, action string, change func(ctx context.Context) (objectID string, err error)) error {
	return o.Store.InTx(ctx, func(ctx context.Context) error {
		id, err := change(ctx)
		if err != nil {
			return err
		}
		return o.Store.Audit(ctx, scope, action, id)
	})
}
