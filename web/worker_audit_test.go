package web_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/maintenance"
	"payments/web/webtest"
)

type workerRow struct {
	Action string `bun:"action"`
	Actor  string `bun:"actor"`
	Door   string `bun:"door"`
}

func trailOf(t *testing.T, s *webtest.Server, objectID string) []workerRow {
	t.Helper()
	var rows []workerRow
	require.NoError(t, s.DB.NewRaw(`SELECT action, actor, door FROM audit_trail WHERE object_id = ? ORDER BY id`, objectID).
		Scan(context.Background(), &rows))
	return rows
}

// The PSP's answers (its worker registering a charge, confirming its Pix)
// and the service's own jobs (the expiry sweep) write their audit rows too,
// each as who did it.
func TestWorkersWriteTheirAuditRows(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	p := s.CreateLivePayment(map[string]any{"amount_cents": 3_000})
	s.PSP.Pay(p["correlation_id"].(string))
	id := p["id"].(string)
	s.WaitForPayment(s.LiveKey, id, "paid", 10*time.Second)
	key := "api_key:" + keyID(t, s, s.LiveKey)
	require.Eventually(t, func() bool { return len(trailOf(t, s, id)) == 3 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []workerRow{
		{"payment.created", key, "api"},
		{"payment.charge_registered", "psp", "psp"},
		{"payment.paid", "psp", "psp"},
	}, trailOf(t, s, id))
}

func TestTheExpirySweepWritesItsAuditRows(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := webtest.New(t, webtest.WithClock(clock))
	id := s.CreatePayment(map[string]any{"amount_cents": 100, "expires_in": 300})["id"].(string)
	mu.Lock()
	now = now.Add(6 * time.Minute)
	mu.Unlock()
	require.Equal(t, 1, maintenance.ExpireOverdue(context.Background(), s.Store, slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.Equal(t, []workerRow{{"payment.created", "api_key:" + keyID(t, s, s.TestKey), "api"}, {"payment.expired", "system", "system"}},
		trailOf(t, s, id))
}
