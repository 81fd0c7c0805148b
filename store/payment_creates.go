package store

import (
	"context"
	"time"
)

// paymentCreates coalesces concurrent payment creations (see coalescer):
// a batch is one round trip, each creation still its own statement and its
// own transaction, so a refused one (a taken external_id) refuses only
// itself. Besides the round trips it saves, it keeps the number of
// creations PostgreSQL runs at once small: at 32 concurrent requests, 32
// backends inserting into the same indexes spent more on contending with
// each other than on inserting, and a waiter's turn was random
// (database/sql hands a freed connection to any of its waiters), which set
// the tail latency. The coalescer's queue is first come, first served.
type paymentCreates = coalescer[[]any, struct{}]

func newPaymentCreates(s *Store) *paymentCreates {
	return &paymentCreates{maxInFlight: 2, maxBatch: 32, timeout: 10 * time.Second, serve: s.serveCreates}
}

// serveCreates runs each creation's createPaymentSQL (args are its
// arguments).
func (s *Store) serveCreates(ctx context.Context, batch [][]any) []outcome[struct{}] {
	stmts := make([]statement, len(batch))
	for i, args := range batch {
		stmts[i] = statement{sql: createPaymentSQL, args: args}
	}
	errs, err := s.separately(ctx, stmts)
	outs := make([]outcome[struct{}], len(batch))
	for i := range outs {
		if err != nil {
			outs[i].err = err
		} else {
			outs[i].err = errs[i]
		}
	}
	return outs
}
