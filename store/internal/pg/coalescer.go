package pg

import (
	"context"
	"sync"
	"time"
)

// Coalescer gathers concurrent calls into batches that one statement
// serves. Under load a small statement spends far more on its round trip
// (protocol messages, system calls on both sides, waking a backend, starting
// the executor) than on its rows, so one round trip for many calls serves
// more of them with the same CPU. Nothing waits to fill a batch: a call runs
// at once while fewer than maxInFlight batches are out, and otherwise joins
// the next batch, which takes everything that queued meanwhile.
type Coalescer[In, Out any] struct {
	MaxInFlight, MaxBatch int
	Timeout               time.Duration // bounds one batch; each call also gives up with its own context
	// Serve answers a batch, one outcome per input, in order.
	Serve func(ctx context.Context, batch []In) []Outcome[Out]

	mu       sync.Mutex
	queued   []*coalescedCall[In, Out]
	inFlight int
}

// Outcome is one call's answer.
type Outcome[Out any] struct {
	Out Out
	Err error
}

type coalescedCall[In, Out any] struct {
	ctx  context.Context // the caller's: a call it gave up on is not sent
	in   In
	done chan Outcome[Out]
}

// Do runs in within a batch and returns its outcome.
func (c *Coalescer[In, Out]) Do(ctx context.Context, in In) (Out, error) {
	call := &coalescedCall[In, Out]{ctx: ctx, in: in, done: make(chan Outcome[Out], 1)}
	c.mu.Lock()
	if c.inFlight < c.MaxInFlight {
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
		return res.Out, res.Err
	}
	c.queued = append(c.queued, call)
	c.mu.Unlock()
	select {
	case res := <-call.done:
		return res.Out, res.Err
	case <-ctx.Done():
		var zero Out
		return zero, ctx.Err()
	}
}

// takeLocked removes the next batch from the queue, first (when set) at its
// head. Calls whose callers have given up (do returned their context's
// error) are dropped: a creation nobody waits for is not made.
func (c *Coalescer[In, Out]) takeLocked(first *coalescedCall[In, Out]) []*coalescedCall[In, Out] {
	var batch []*coalescedCall[In, Out]
	if first != nil {
		batch = append(batch, first)
	}
	n := 0
	for ; n < len(c.queued) && len(batch) < c.MaxBatch; n++ {
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
func (c *Coalescer[In, Out]) run(ctx context.Context) {
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
func (c *Coalescer[In, Out]) serve1(ctx context.Context, batch []*coalescedCall[In, Out]) {
	ins := make([]In, len(batch))
	for i, call := range batch {
		ins[i] = call.in
	}
	batchCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.Timeout)
	defer cancel()
	outs := c.Serve(batchCtx, ins)
	for i, call := range batch {
		call.done <- outs[i]
	}
}
