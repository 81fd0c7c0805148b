package store

import "sync"

// A claim's deliveries carry their webhook. The claim answers the version
// of each one's webhook row (its xmin, which every write of the row moves:
// a change a person or key makes, a lane, a failure streak), and the copy
// last read is used while the version is the same: reading the webhooks
// again after every claim was one more round trip for each event
// delivered at low load (BENCHMARKS.md, "An event's round trips"). A
// chain's deliveries are checked the same way (finishSuccessesTail). Not
// updated_at: two changes in the same microsecond (a test's clock that
// stands still; hosts whose clocks disagree) would leave it where it was.

// maxWebhookCopies bounds the webhooks remembered: past it they are all
// forgotten, and read again as claims need them.
const maxWebhookCopies = 2_000

// webhookCopies remembers the webhooks the dispatcher read, by id.
type webhookCopies struct {
	mu    sync.Mutex
	known map[string]*Webhook
}

func newWebhookCopies() *webhookCopies { return &webhookCopies{known: map[string]*Webhook{}} }

// get is webhook id as remembered when its row is at version; nil when it
// must be read.
func (c *webhookCopies) get(id, version string) *Webhook {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.known[id]; w != nil && w.RowVersion == version {
		return w
	}
	return nil
}

// keep remembers hooks as read.
func (c *webhookCopies) keep(hooks []Webhook) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.known)+len(hooks) > maxWebhookCopies {
		clear(c.known)
	}
	for i := range hooks {
		c.known[hooks[i].ID] = &hooks[i]
	}
}
