package dispatcher

import (
	"context"
	"time"

	"payments/store"
)

// completer records the workers' successes in batches: a success is the
// common case and its bookkeeping most of a delivery's database work, and
// one statement for a batch (store.FinishSuccesses) costs PostgreSQL far
// less than one per success. Nothing waits to fill a batch: each of the
// completer's runners takes the first success that comes and whatever
// queued behind it, so a lone success is recorded at once and a busy
// dispatcher's successes share statements. Two runners: one batch is one
// statement, whose start-up costs more than its rows, so bigger batches
// cost less per success; one runner cost less still but left the machine a
// third idle, and would let one batch waiting on a lock hold up every
// webhook's successes (measured in BENCHMARKS.md).
type completer struct {
	store *store.Store
	queue chan completion
}

const (
	completerRunners  = 2
	completerMaxBatch = 32
	// completerTimeout bounds one batch's statement.
	completerTimeout = 10 * time.Second
)

// completion is one success waiting to be recorded, and where its answer goes.
type completion struct {
	success store.Success
	done    chan store.Finished
}

func newCompleter(st *store.Store) *completer {
	c := &completer{store: st, queue: make(chan completion, completerRunners*completerMaxBatch)}
	for range completerRunners {
		go c.run()
	}
	return c
}

// complete records s with the next batch and returns what became of it.
func (c *completer) complete(ctx context.Context, s store.Success) store.Finished {
	call := completion{success: s, done: make(chan store.Finished, 1)}
	select {
	case c.queue <- call:
	case <-ctx.Done():
		return store.Finished{Err: ctx.Err()}
	}
	select {
	case f := <-call.done:
		return f
	case <-ctx.Done():
		return store.Finished{Err: ctx.Err()}
	}
}

// run records batches for as long as the process lives.
func (c *completer) run() {
	for first := range c.queue {
		batch := []completion{first}
	more:
		for len(batch) < completerMaxBatch {
			select {
			case next := <-c.queue:
				batch = append(batch, next)
			default:
				break more
			}
		}
		successes := make([]store.Success, len(batch))
		for i, call := range batch {
			successes[i] = call.success
		}
		ctx, cancel := context.WithTimeout(context.Background(), completerTimeout)
		finished := c.store.FinishSuccesses(ctx, successes)
		cancel()
		for i, call := range batch {
			call.done <- finished[i]
		}
	}
}
