package dispatcher_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/store"
	"payments/web/webtest"
)

// What is queued while the dispatcher's LISTEN connection is down (lost,
// or not yet made as it starts) notified no one: once it listens again it
// claims at once, not at the next poll (a minute here). Seen as
// TestAFreedWorkerClaimsOnlyWhenAClaimLeftWorkBehind under load: a payment
// made as the dispatcher started waited for the poll.
func TestAListenerBackClaimsWhatWasQueuedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := webtest.New(t)
	recv := webtest.NewReceiver(t, nil)
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	startNotifiedDispatcher(t, s, 2)

	listener := func() (pid int) {
		_ = s.DB.NewRaw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = ?`,
			"LISTEN "+store.DeliveriesChannel).Scan(ctx, &pid)
		return pid
	}
	// Listening, and idle: a first delivery went through its notification.
	require.Eventually(t, func() bool { return listener() != 0 }, 5*time.Second, 10*time.Millisecond)
	s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Len(t, recv.WaitFor(1, 10*time.Second), 1)
	// The connection goes, and a payment is made before it is back (the
	// listener waits a second to connect again).
	_, err := s.DB.ExecContext(ctx, "SELECT pg_terminate_backend(?)", listener())
	require.NoError(t, err)
	require.Eventually(t, func() bool { return listener() == 0 }, 5*time.Second, 10*time.Millisecond)
	s.CreatePayment(map[string]any{"amount_cents": 200})
	require.Len(t, recv.WaitFor(2, 10*time.Second), 2, "the delivery queued while the listener was away, long before the poll")
}

// startNotifiedDispatcher runs a dispatcher of workers on s's database
// until the test ends, whose poll (a minute) never comes in a test: only
// its notifications, and its freed workers, make it claim.
func startNotifiedDispatcher(t *testing.T, s *webtest.Server, workers int) {
	t.Helper()
	d := dispatcher.New(dispatcher.Config{Workers: workers, PerWebhook: 8, PollInterval: time.Minute, DatabaseURL: s.DBURL,
		AllowPrivateNetworks: true}, s.Store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	d.Start(context.Background())
	t.Cleanup(d.Stop)
}
