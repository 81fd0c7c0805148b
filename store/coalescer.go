package store

import (
	"context"
	"sync"
	"time"
)

// coalescer gathers concurrent calls into batches that one statement
// serves. Under load a small statement spends far more on its round trip
// (protocol messages, system calls on both sides, waking a backend, starting
// the executor) than on its rows, so one round trip for many calls serves
// more of them with the same CPU. Nothing waits to fill a batch: a call runs
// at once while fewer than maxInFlight batches are out, and otherwise joins
// the next batch, which takes everything that queued meanwhile.
type coalescer[In, Out any] struct {
	maxInFlight, maxBatch int
	timeout               time.Duration // bounds one batch; each call also gives up with its own context
	// serve answers a batch, one outcome per input, in order.
	serve func(ctx context.Context, batch []In) []outcome[Out]

	mu       sync.Mutex
	queued   []*coalescedCall[In, Out]
	inFlight int
}

type outcome[Out any] struct {
	out Out
	err error
}

type coalescedCall[In, Out any] struct {
	in   In
	done chan outcome[Out]
}

func (c *coalescer[In, Out]) do(ctx context.Context, in In) (Out, error) {
	call := &coalescedCall[In, Out]{in: in, done: make(chan outcome[Out], 1)}
	c.mu.Lock()
	c.queued = append(c.queued, call)
	if c.inFlight < c.maxInFlight {
		c.inFlight++
		// The runner serves other calls too, so it does not end with this
		// one's context; it stops when the queue is empty.
		go c.run(context.WithoutCancel(ctx))
	}
	c.mu.Unlock()
	select {
	case res := <-call.done:
		return res.out, res.err
	case <-ctx.Done():
		var zero Out
		return zero, ctx.Err()
	}
}

// run serves queued calls, a batch at a time, until none are left.
func (c *coalescer[In, Out]) run(ctx context.Context) {
	for {
		c.mu.Lock()
		n := min(len(c.queued), c.maxBatch)
		if n == 0 {
			c.inFlight--
			c.mu.Unlock()
			return
		}
		batch := c.queued[:n:n]
		c.queued = c.queued[n:]
		if len(c.queued) == 0 {
			c.queued = nil
		}
		c.mu.Unlock()

		ins := make([]In, len(batch))
		for i, call := range batch {
			ins[i] = call.in
		}
		batchCtx, cancel := context.WithTimeout(ctx, c.timeout)
		outs := c.serve(batchCtx, ins)
		cancel()
		for i, call := range batch {
			call.done <- outs[i]
		}
	}
}
