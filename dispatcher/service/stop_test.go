package service_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/dispatcher/maintenance"
	"payments/dispatcher/pspcalls"
	"payments/web/webtest"
)

// The background workers stop as services: the webhook dispatcher (its
// LISTEN, attempts in flight and the batched successes), the PSP worker
// (its LISTEN, reconciler and calls) and the maintenance jobs, each started
// while there is work and stopped, leave no goroutine of theirs behind once
// Stop returns. The package's other test starts no goroutine, so every
// goroutine of those packages is one of these workers'.
func TestNoWorkerGoroutineOutlivesStop(t *testing.T) {
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{NoWorker: true}))
	slow := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(50 * time.Millisecond)
		w.WriteHeader(http.StatusOK)
	})
	s.CreateWebhook(slow.URL, map[string]any{"events": []string{"payment.created"}})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	disp := dispatcher.New(dispatcher.Config{DatabaseURL: s.DBURL, AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond}, s.Store, log)
	worker := pspcalls.New(s.PSP.WorkerConfig, s.Store, s.PSP.Client, log)
	jobs := maintenance.New(maintenance.Config{ExpiryInterval: 20 * time.Millisecond, PruneInterval: 20 * time.Millisecond,
		AttemptRetention: time.Hour, EventRetention: time.Hour}, s.Store, log)
	for _, w := range []interface{ Start(context.Context) }{disp, worker, jobs} {
		w.Start(context.Background())
	}
	for range 20 {
		s.CreatePayment(map[string]any{"amount_cents": 1_000})
	}
	s.CreateLivePayment(map[string]any{"amount_cents": 2_000})
	slow.WaitFor(5, 10*time.Second)
	require.NotEmpty(t, ours(), "the workers are running")

	for _, w := range []interface{ Stop() }{worker, disp, jobs} {
		w.Stop()
	}
	// A worker's goroutine signals its WaitGroup from a deferred call, the
	// last thing it runs: Stop can return while the goroutine is still
	// returning (seen: "runnable" at its closing brace). It gets a moment
	// to end; one still running code of ours after that outlived Stop.
	var left []string
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if left = ours(); len(left) == 0 {
			break
		}
	}
	require.Empty(t, left, "goroutines of the workers left after Stop")
}

// ours lists the goroutines running code of the workers' packages.
func ours() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		stack := string(g)
		for _, pkg := range []string{"payments/dispatcher.", "payments/dispatcher/pspcalls.", "payments/dispatcher/maintenance.", "payments/dispatcher/service."} {
			if strings.Contains(stack, "\n"+pkg) && !strings.Contains(stack, "TestNoWorkerGoroutineOutlivesStop") {
				out = append(out, stack)
				break
			}
		}
	}
	return out
}
