package dispatcher_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/dispatcher/maintenance"
	"payments/store"
	"payments/store/ids"
	"payments/web/webtest"
)

// Retention drops whole months of history (migration 030): a month past
// retention goes with its partitions, every row of it and nothing else,
// leaving no dead rows; the months ahead are made as it runs.
func TestRetentionDropsWholeMonths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := webtest.New(t)
	recv := webtest.NewReceiver(t, nil)
	webhookID, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	s.Dispatcher.RunOnce(ctx, 10)

	// History of two earlier months, as old ids: with 40 days' retention,
	// three months back is always past it and last month never is.
	now := time.Now().UTC()
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	gone, kept := thisMonth.AddDate(0, -3, 10), thisMonth.AddDate(0, -1, 10)
	require.NoError(t, s.Store.EnsurePartitions(ctx, gone, now))
	seq := uint64(0)
	for _, at := range []time.Time{gone, kept} {
		for range 50 {
			seq++
			evt := ids.AtSeq(ids.PrefixEvent, at, seq)
			_, err := s.DB.NewRaw(`INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at)
				VALUES (?, ?, false, 'payment.created', 'pay', '{}', ?)`, evt, s.Account.ID, at).Exec(ctx)
			require.NoError(t, err)
			dlv := ids.AtSeq(ids.PrefixDelivery, at, seq)
			_, err = s.DB.NewRaw(`INSERT INTO webhook_deliveries (id, event_id, webhook_id, account_id, livemode, event_type,
				status, attempts, next_attempt_at, created_at, updated_at)
				VALUES (?, ?, ?, ?, false, 'payment.created', 'succeeded', 1, ?, ?, ?)`,
				dlv, evt, webhookID, s.Account.ID, at, at, at).Exec(ctx)
			require.NoError(t, err)
			_, err = s.DB.NewRaw(`INSERT INTO delivery_attempts (id, delivery_id, webhook_id, event_id, event_type, attempt,
				request_url, request_headers, request_body, response_status, duration_ms, created_at)
				VALUES (?, ?, ?, ?, 'payment.created', 1, 'https://x', '{}', '{}', 200, 5, ?)`,
				ids.AtSeq(ids.PrefixAttempt, at, seq), dlv, webhookID, evt, at).Exec(ctx)
			require.NoError(t, err)
		}
	}

	count := func(table string) int {
		var n int
		require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM ?", bun.Ident(table)).Scan(ctx, &n))
		return n
	}
	require.Equal(t, 101, count("delivery_attempts"))
	cfg := maintenance.Config{AttemptRetention: 40 * 24 * time.Hour, EventRetention: 40 * 24 * time.Hour}
	dropped := maintenance.KeepPartitions(ctx, s.Store, cfg, now, slog.New(slog.DiscardHandler))

	// Every month that ended 40 days ago or before: three months back, and
	// the (empty) month after it once past its 10th.
	var want []string
	for m := thisMonth.AddDate(0, -3, 0); !m.AddDate(0, 1, 0).After(now.Add(-cfg.AttemptRetention)); m = m.AddDate(0, 1, 0) {
		for _, table := range []string{"delivery_attempts", "webhook_deliveries", "events"} {
			want = append(want, table+"_"+m.Format("2006_01"))
		}
	}
	require.ElementsMatch(t, want, dropped)
	month := gone.Format("2006_01")
	for _, table := range []string{"delivery_attempts", "webhook_deliveries", "events"} {
		require.Equal(t, 51, count(table), table)
	}
	// Nothing was deleted row by row.
	_, err := s.DB.ExecContext(ctx, "SELECT pg_stat_force_next_flush()")
	require.NoError(t, err)
	var dead int
	require.NoError(t, s.DB.NewRaw(`SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables
		WHERE relname LIKE 'delivery_attempts%' OR relname LIKE 'events%'`).Scan(ctx, &dead))
	require.Equal(t, 0, dead)

	// The months ahead are there, and the service goes on writing.
	names, err := s.Store.Partitions(ctx, store.HistoryAttempts)
	require.NoError(t, err)
	for m := range store.MonthsAhead + 1 {
		require.Contains(t, names, fmt.Sprintf("delivery_attempts_%s", thisMonth.AddDate(0, m, 0).Format("2006_01")))
	}
	require.NotContains(t, names, "delivery_attempts_"+month)
	s.CreatePayment(map[string]any{"amount_cents": 100})
	s.Dispatcher.RunOnce(ctx, 10)
	require.Equal(t, 52, count("delivery_attempts"))
	require.Empty(t, maintenance.KeepPartitions(ctx, s.Store, cfg, now, slog.New(slog.DiscardHandler)))
}
