package store

import (
	"context"
	"fmt"
)

// A goroutine that holds one of the pool's connections (its transaction's)
// and waits for a second deadlocks once every connection is held by such
// goroutines: the PSP worker's 32 workers on a pool of 20 hung that way
// (f16f0ff), and with them everything else the service does. A store call
// made inside a transaction goes through it (the ambient transaction, or
// the tx handed down). In test binaries the store checks this: a
// transaction's context is marked, and a marked context that reaches for
// the pool is a panic naming the call, so every test that walks such a path
// fails instead of passing on an idle pool.

// heldConnKey marks a context whose goroutine holds a transaction's
// connection.
type heldConnKey struct{}

// holding is ctx marked as holding a connection, when the store checks.
func (s *Store) holding(ctx context.Context) context.Context {
	if !s.checkNesting {
		return ctx
	}
	return context.WithValue(ctx, heldConnKey{}, true)
}

// fromPool is called before what takes a connection of the pool's: it
// panics, when the store checks, if ctx's goroutine holds one already (a
// transaction of the store's, or an ambient one that what does not join).
func (s *Store) fromPool(ctx context.Context, what string) {
	if !s.checkNesting {
		return
	}
	held, _ := ctx.Value(heldConnKey{}).(bool)
	if _, ambient := ambientOf(ctx); held || ambient {
		panic(fmt.Sprintf("store: %s takes a second connection from the pool while its goroutine holds one", what))
	}
}
