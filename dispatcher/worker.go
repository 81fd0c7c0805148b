package dispatcher

import (
	"context"
	"strings"
	"sync"
	"time"

	"payments/dispatcher/service"
	"payments/store"
)

// maxChain and chainFor bound a worker's run of one webhook's queue, so
// that other webhooks get their turn: it returns to the pool after maxChain
// deliveries, or once chainFor has passed since its first (a webhook
// answering in 200 ms held a worker 13 s for 64 deliveries). Every return is
// a claim, and a claim walks each busy webhook's queue past the runs
// leased on it: at 64, claims were a quarter of PostgreSQL's statement
// time in the ten-fold drain (BENCHMARKS.md, "Longer runs").
const (
	maxChain = 256
	chainFor = time.Second
)

// leaseMargin is how much of its lease a held delivery must have left,
// beyond AttemptTimeout, to be attempted: one with less is given back.
const leaseMargin = 2 * time.Second

// work attempts first and then, while its webhook answers fast, that
// webhook's next due deliveries: a success's record (with the other
// successes of the moment, store.FinishSuccess) leases the next run of them
// under this worker's slot, asked for while half of the run in hand is left,
// so the worker sends one request after another and never waits on the
// database while its webhook has deliveries due. Successes are recorded
// while the worker goes on; what went wrong is recorded before it does.
//
// A worker is one of its webhook's requests in flight: the claim counts its
// slot, not the deliveries it holds (store's leaseSlotSQL), so the
// per-webhook cap and the fair shares hold as before. It gives back what it
// holds and returns to the pool after anything but a fast success (a
// failure, a timeout, a slow answer), when another worker's attempt of its
// webhook failed in this process (a receiver in trouble, a Retry-After
// pause, a disabled webhook: this process sends it no more than the
// attempts in flight when it happened; another dispatcher's workers stop at
// their own next failure or their run's end, 16 at most), after maxChain
// deliveries or chainFor, and when the dispatcher stops.
func (d *Dispatcher) work(ctx, stopping context.Context, first *store.Delivery) {
	r := &run{d: d, queue: []*store.Delivery{first}, refill: make(chan []*store.Delivery, 1)}
	failures := d.failed(first.WebhookID)
	seen := failures.Load()
	until := time.Now().Add(chainFor)
	for sent := 0; ; sent++ {
		dl := r.next()
		if dl == nil {
			break
		}
		if sent > 0 && (stopping.Err() != nil || failures.Load() != seen || !d.leaseLeft(dl) || time.Now().After(until)) {
			r.queue = append([]*store.Delivery{dl}, r.queue...)
			break
		}
		success, fast := d.attemptOne(ctx, dl)
		if success == nil {
			break
		}
		want := 0 // what the run may grow by: to Run held, and maxChain in all
		if fast && !r.asked && len(r.queue) <= d.cfg.Run/2 && stopping.Err() == nil && time.Now().Before(until) {
			want = max(min(d.cfg.Run-len(r.queue), maxChain-(sent+1)-len(r.queue)), 0)
		}
		r.record(*success, want)
		if !fast {
			break
		}
	}
	r.giveBack()
}

// run is what a worker holds of its webhook's deliveries.
type run struct {
	d *Dispatcher
	// queue holds the deliveries leased to the worker, in due order.
	queue []*store.Delivery
	// refill answers the one request for more that may be outstanding (asked).
	refill chan []*store.Delivery
	asked  bool
	// recording counts the worker's successes being recorded: it returns
	// to the pool once they are, when its slot is free in the database too
	// (a claim made before would find no room for it, and nothing would
	// wake the dispatcher when the records land).
	recording sync.WaitGroup
}

// next is the worker's next delivery, waiting for the run it asked for
// when it has nothing else; nil when there is nothing more.
func (r *run) next() *store.Delivery {
	select {
	case more := <-r.refill:
		r.queue, r.asked = append(r.queue, more...), false
	default:
	}
	if len(r.queue) == 0 && r.asked {
		r.queue, r.asked = append(r.queue, <-r.refill...), false
	}
	if len(r.queue) == 0 {
		return nil
	}
	dl := r.queue[0]
	r.queue = r.queue[1:]
	return dl
}

// record has a success recorded in the background, with a request for want
// more of its webhook's deliveries (none when 0).
func (r *run) record(success store.Success, want int) {
	frontier := r.d.frontier(success.Delivery.WebhookID)
	if want > 0 {
		// Its token is recordSuccess's, one for each try, under the
		// worker's slot.
		success.Next = &store.ClaimParams{Lease: r.d.cfg.Lease, Limit: want}
		if !success.Delivery.Webhook.Ordered {
			// An ordered webhook's run starts at the finished delivery: the
			// next of its object, held until now, is right after it.
			success.Next.AfterDue, success.Next.AfterID = frontier.at()
		}
		r.asked = true
	}
	r.recording.Go(func() {
		more := r.d.recordSuccess(success)
		for _, dl := range more {
			frontier.reach(dl)
		}
		if want > 0 {
			r.refill <- more
		}
	})
}

// giveBack releases what the worker holds and will not attempt, once the
// run it asked for (if any) has come, and waits for its successes' records.
func (r *run) giveBack() {
	defer r.recording.Wait()
	if r.asked {
		r.queue, r.asked = append(r.queue, <-r.refill...), false
	}
	if len(r.queue) == 0 {
		return
	}
	ids, tokens := make([]string, len(r.queue)), make([]string, len(r.queue))
	for i, dl := range r.queue {
		ids[i], tokens[i] = dl.ID, *dl.LeaseToken
	}
	err := service.UntilAnswered(time.Now().Add(r.d.cfg.Lease), func(ctx context.Context) error {
		_, err := r.d.store.ReleaseDeliveries(ctx, ids, tokens)
		return err
	})
	if err != nil {
		// Their leases run out and they are claimed again then.
		r.d.log.Error("dispatcher: give back held deliveries", "count", len(ids), "error", err.Error())
		return
	}
	r.d.signal() // they are due again
}

// leaseLeft reports whether a held delivery's lease outlasts an attempt.
func (d *Dispatcher) leaseLeft(dl *store.Delivery) bool {
	return dl.LeaseExpiresAt == nil || d.cfg.Now().Add(AttemptTimeout+leaseMargin).Before(*dl.LeaseExpiresAt)
}

// slotOf is the slot of a delivery's lease token (see store's
// leaseSlotSQL): the token itself as a claim gives it, its part before "/"
// as a run's.
func slotOf(dl *store.Delivery) string {
	if dl.LeaseToken == nil {
		return ""
	}
	slot, _, _ := strings.Cut(*dl.LeaseToken, "/")
	return slot
}

// frontier is how far into a webhook's queue (next_attempt_at, id) this
// process has leased: its runs start looking past it, not past the runs its
// other workers hold. What lies behind it and is free again (given back, a
// lease run out) is the claim's, which reads the queue from its head.
type frontier struct {
	mu  sync.Mutex
	due time.Time
	id  string
}

// frontier is the webhook's frontier.
func (d *Dispatcher) frontier(webhookID string) *frontier {
	f, _ := d.frontiers.LoadOrStore(webhookID, new(frontier))
	return f.(*frontier)
}

// reach moves the frontier to dl's place when that is further.
func (f *frontier) reach(dl *store.Delivery) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if dl.NextAttemptAt.After(f.due) || (dl.NextAttemptAt.Equal(f.due) && dl.ID > f.id) {
		f.due, f.id = dl.NextAttemptAt, dl.ID
	}
}

// at is the frontier's place ("" before any lease).
func (f *frontier) at() (time.Time, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.due, f.id
}
