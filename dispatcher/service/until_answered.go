package service

import (
	"context"
	"time"

	"payments/store"
)

// UntilAnswered runs write, and runs it again with a growing pause (50 ms
// to 1 s), while it fails because the database is out of reach (a restart,
// a cut connection: store.Unavailable) or aborted it (a deadlock lost:
// store.Aborted) and deadline, the end of the caller's lease, is not
// passed. A worker's finish that gave up on the first failure would leave
// its lease (and, for a webhook, its place under the in-flight cap) taken
// until the lease ran out: after a 3 s restart, deliveries stopped for a
// minute; and a success left unrecorded is sent again then. write must be
// safe to repeat: its first try may have committed with only the answer
// lost. Any other error is returned at once; each try has 10 s.
func UntilAnswered(deadline time.Time, write func(ctx context.Context) error) error {
	pause := 50 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := write(ctx)
		cancel()
		if err == nil || !(store.Unavailable(err) || store.Aborted(err)) || time.Now().Add(pause).After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(pause*2, time.Second)
	}
}
