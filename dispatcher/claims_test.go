package dispatcher_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// A freed worker claims again when the last claim may have left due
// deliveries behind (here its limit: two workers, three webhooks with a
// delivery each), and not when it left nothing: at 200 events a second
// every event cost two claims, the second finding nothing. The poll (a
// minute here) would take what a missed claim leaves.
func TestAFreedWorkerClaimsOnlyWhenAClaimLeftWorkBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := webtest.New(t)
	quick := webtest.NewReceiver(t, nil)
	inFlight, answer := make(chan struct{}), make(chan struct{})
	slow := webtest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		close(inFlight)
		select {
		case <-answer:
		case <-r.Context().Done():
		}
	})
	s.CreateWebhook(quick.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreateWebhook(quick.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreateWebhook(slow.URL, map[string]any{"events": []string{"payment.created"}})
	startNotifiedDispatcher(t, s, 2)

	s.CreatePayment(map[string]any{"amount_cents": 100})
	// The first claim takes two of the three; a worker, freed, claims the
	// third at once, not at the next poll.
	quick.WaitFor(2, 5*time.Second)
	select {
	case <-inFlight:
	case <-time.After(5 * time.Second):
		t.Fatal("the third delivery was not claimed when a worker was freed")
	}
	succeeded := func(n int) {
		require.Eventually(t, func() bool {
			var done int
			require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded'").Scan(ctx, &done))
			return done == n
		}, 5*time.Second, 10*time.Millisecond)
		time.Sleep(300 * time.Millisecond) // a worker is freed once its success is recorded
	}
	succeeded(2)

	// Nothing is left: with the claims held back by the test, the last
	// worker freed would be seen waiting for their lock. The claims the
	// quick deliveries' workers may still make (the last claim took the
	// third delivery at its limit, and said it may have left some) are let
	// through first, however late a loaded machine makes them.
	conn, err := s.DB.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	claimsLocked := func(locked bool) {
		t.Helper()
		fn := map[bool]string{true: "pg_advisory_lock", false: "pg_advisory_unlock"}[locked]
		_, err := conn.ExecContext(ctx, "SELECT "+fn+"("+store.ClaimLock+")")
		require.NoError(t, err)
	}
	waiting := func() int {
		t.Helper()
		var n int
		require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(ctx, &n))
		return n
	}
	for settled := false; !settled; {
		claimsLocked(true)
		time.Sleep(200 * time.Millisecond)
		if settled = waiting() == 0; !settled {
			claimsLocked(false)
		}
	}
	close(answer)
	succeeded(3)
	require.Zero(t, waiting(), "a claim after the last delivery, with nothing left to claim")
	claimsLocked(false)
}
