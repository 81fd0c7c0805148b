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

// takesConn is called with the context of what takes a connection to hold
// (a transaction): it checks that ctx's goroutine holds none yet
// (fromPool), and returns ctx marked as holding the one it takes.
func (s *Store) takesConn(ctx context.Context, what string) context.Context {
	if !s.checkNesting {
		return ctx
	}
	s.fromPool(ctx, what)
	return context.WithValue(ctx, heldConnKey{}, true)
}

// fromPool is called before what takes a connection of the pool's (a
// read, or a transaction through takesConn): it panics, when the store
// checks, if ctx's goroutine holds one already (a transaction of the
// store's, or an ambient one that what does not join).
func (s *Store) fromPool(ctx context.Context, what string) {
	if !s.checkNesting {
		return
	}
	held, _ := ctx.Value(heldConnKey{}).(bool)
	if _, ambient := ambientOf(ctx); held || ambient {
		panic(fmt.Sprintf("store: %s takes a second connection from the pool while its goroutine holds one", what))
	}
}
