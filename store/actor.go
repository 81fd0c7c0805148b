package store

import (
	"context"
	"fmt"
	"strings"
)

// Actor is who asked for a change, as it is recorded with the change (an
// event's actor, an audit_log row): "user:<id>", "api_key:<id>",
// "admin:<command>", "psp" or "system".
type Actor string

// The actors that are not a user, a key or a command.
const (
	ActorPSP    Actor = "psp"
	ActorSystem Actor = "system"
)

// ActorUser is a person signed in to the dashboard.
func ActorUser(userID string) Actor { return Actor("user:" + userID) }

// ActorAPIKey is an integrator's call with one of the account's keys.
func ActorAPIKey(keyID string) Actor { return Actor("api_key:" + keyID) }

// ActorAdmin is an operator's command (payments <command> ...).
func ActorAdmin(command string) Actor { return Actor("admin:" + command) }

// Kind is what asked: user, api_key, admin, psp or system.
func (a Actor) Kind() string {
	kind, _, _ := strings.Cut(string(a), ":")
	return kind
}

type actorKey struct{}

// WithActor returns ctx carrying who asked: every change the store makes
// with it records them. Operations set it; a change made without one is
// the service's own (ActorSystem).
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// actorOf is who ctx says asked.
func actorOf(ctx context.Context) string {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok && a != "" {
		return string(a)
	}
	return string(ActorSystem)
}

// Audit records that ctx's actor did action to objectID in scope, in the
// ambient transaction when ctx carries one (the change's own): for changes
// that make no event, whose event row would otherwise say who asked.
func (s *Store) Audit(ctx context.Context, scope Scope, action, objectID string) error {
	_, err := s.idb(ctx).NewRaw(`INSERT INTO audit_log (account_id, livemode, action, object_id, actor, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, scope.AccountID, scope.Livemode, action, objectID, actorOf(ctx), s.Now()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: audit %s: %w", action, err)
	}
	return nil
}
