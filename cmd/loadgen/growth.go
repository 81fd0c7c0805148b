package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"payments/internal/benchserve"
	"payments/store"
)

// benchGrowth drains what issue 48 asks to stay flat as work grows, each
// beside the drain to four webhooks of the run's backlog: ten times that
// backlog to the same four webhooks, and the backlog spread over 1,000
// webhooks of 100 accounts (ten each, one event type each, so each event
// has one delivery and the receiver counts every one).
func benchGrowth(ctx context.Context, pool *pgxpool.Pool, st *store.Store, m *meter, recv *receiver,
	accountID, paymentID string, snapshot []byte, backlog int, fourWebhooks result,
) error {
	settle(ctx, pool)
	n := 10 * backlog
	start, err := queueHeldBack(ctx, pool, func() error {
		// A backlog at a time: one statement of 10x would carry every
		// snapshot at once.
		recv.reset()
		for range 10 {
			if err := recordBacklog(ctx, st, accountID, backlogTypes, paymentID, snapshot, backlog); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	name := fmt.Sprintf("webhook deliveries, %d queued to 4 webhook(s) (10x)", n)
	var tenfold result
	m.run(name+" (the drain)", func() result { tenfold, err = drainBacklog(recv, start, n); return tenfold })
	if err != nil {
		return err
	}
	m.t.add(name, tenfold, fourWebhooks, fmt.Sprintf("the drain of %d to 4 webhooks", backlog))

	// Webhooks made here have secrets the service must unseal: its key.
	key, err := hex.DecodeString(benchserve.SecretKeyHex)
	if err != nil {
		return err
	}
	keyed, err := store.New(st.DB(), store.Options{SecretKey: key})
	if err != nil {
		return err
	}
	types := store.EventTypes[:10]
	var accounts []string
	for a := range 100 {
		acct, err := st.CreateAccount(ctx, store.NewAccount{Name: fmt.Sprintf("Loja %d", a), Email: fmt.Sprintf("growth-%s-%d@example.com", randomHex(3), a),
			FeeBPS: store.DefaultFeeBPS})
		if err != nil {
			return err
		}
		for i, eventType := range types {
			if _, _, err := keyed.CreateWebhook(ctx, store.NewWebhook{Scope: store.Scope{AccountID: acct.ID}, URL: fmt.Sprintf("%s/growth/%d/%d", recv.url, a, i),
				APIVersion: "v2", Events: []string{eventType}, Enabled: true}); err != nil {
				return err
			}
		}
		accounts = append(accounts, acct.ID)
	}
	settle(ctx, pool)
	recv.reset()
	events := make([]store.NewEvent, backlog)
	for i := range events {
		events[i] = store.NewEvent{Scope: store.Scope{AccountID: accounts[i%len(accounts)]}, Type: types[(i/len(accounts))%len(types)],
			ObjectID: paymentID, Data: snapshot, At: time.Now()}
	}
	if err := st.RecordEvents(ctx, events); err != nil {
		return fmt.Errorf("growth backlog: %w", err)
	}
	start = time.Now()
	name = fmt.Sprintf("webhook deliveries, %d queued to 1,000 webhooks of 100 accounts", backlog)
	var spread result
	m.run(name+" (the drain)", func() result { spread, err = drainBacklog(recv, start, backlog); return spread })
	if err != nil {
		return err
	}
	m.t.add(name, spread, fourWebhooks, fmt.Sprintf("the drain of %d to 4 webhooks", backlog))
	return nil
}

// queueHeldBack queues a backlog with queue while holding every
// dispatcher's claims back (store.ClaimLock), and returns when they may
// claim again: the drain is timed from a queue holding all of it, as the
// 1x drains are. Timed from the first of ten commits, the 10x drain also
// shared the machine with the queueing of the other nine (180,000 events
// and deliveries written), and its CPU per delivery divided the CPU of a
// window that began after much of it was delivered.
func queueHeldBack(ctx context.Context, pool *pgxpool.Pool, queue func() error) (time.Time, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return time.Time{}, err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock("+store.ClaimLock+")"); err != nil {
		return time.Time{}, fmt.Errorf("hold claims back: %w", err)
	}
	queued := queue()
	start := time.Now()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock("+store.ClaimLock+")"); err != nil {
		return time.Time{}, fmt.Errorf("let claims go: %w", err)
	}
	return start, queued
}
