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
	ctx  context.Context // the caller's: a call it gave up on is not sent
	in   In
	done chan outcome[Out]
}

func (c *coalescer[In, Out]) do(ctx context.Context, in In) (Out, error) {
	call := &coalescedCall[In, Out]{ctx: ctx, in: in, done: make(chan outcome[Out], 1)}
	c.mu.Lock()
	if c.inFlight < c.maxInFlight {
		// A free slot: serve this call (with whatever queued) right here,
		// without handing it to another goroutine, then leave what queued
		// meanwhile to a runner.
		c.inFlight++
		batch := c.takeLocked(call)
		c.mu.Unlock()
		c.serve1(ctx, batch)
		c.mu.Lock()
		if len(c.queued) > 0 {
			go c.run(ctx) // serve1 detaches each batch from ctx
		} else {
			c.inFlight--
		}
		c.mu.Unlock()
		res := <-call.done
		return res.out, res.err
	}
	c.queued = append(c.queued, call)
	c.mu.Unlock()
	select {
	case res := <-call.done:
		return res.out, res.err
	case <-ctx.Done():
		var zero Out
		return zero, ctx.Err()
	}
}

// takeLocked removes the next batch from the queue, first (when set) at its
// head. Calls whose callers have given up (do returned their context's
// error) are dropped: a creation nobody waits for is not made.
func (c *coalescer[In, Out]) takeLocked(first *coalescedCall[In, Out]) []*coalescedCall[In, Out] {
	var batch []*coalescedCall[In, Out]
	if first != nil {
		batch = append(batch, first)
	}
	n := 0
	for ; n < len(c.queued) && len(batch) < c.maxBatch; n++ {
		if call := c.queued[n]; call.ctx.Err() == nil {
			batch = append(batch, call)
		}
	}
	c.queued = c.queued[n:]
	if len(c.queued) == 0 {
		c.queued = nil
	}
	return batch
}

// run serves queued calls, a batch at a time, until none are left, then
// gives its slot back.
func (c *coalescer[In, Out]) run(ctx context.Context) {
	for {
		c.mu.Lock()
		batch := c.takeLocked(nil)
		if len(batch) == 0 {
			c.inFlight--
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		c.serve1(ctx, batch)
	}
}

// serve1 serves one batch and answers each of its calls. The batch serves
// other requests too, so it does not end with ctx; it has its own timeout.
func (c *coalescer[In, Out]) serve1(ctx context.Context, batch []*coalescedCall[In, Out]) {
	ins := make([]In, len(batch))
	for i, call := range batch {
		ins[i] = call.in
	}
	batchCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	defer cancel()
	outs := c.serve(batchCtx, ins)
	for i, call := range batch {
		call.done <- outs[i]
	}
}
