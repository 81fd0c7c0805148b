package eventfeed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/eventfeed"
	"payments/store/storetest"
)

// Streams at every distance behind a feed that keeps only a few events get
// every event once, in order: those within its memory from it, those
// further back from the store until they catch up; types are filtered.
func TestStreamsGetEveryEventWhateverTheFeedKeeps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.New(storetest.DB(t), store.Options{})
	require.NoError(t, err)
	acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja", Email: "loja@example.com", FeeBPS: 100})
	require.NoError(t, err)
	scope := store.Scope{AccountID: acct.ID}
	hub := eventfeed.New(st, slog.New(slog.DiscardHandler), 10*time.Millisecond, eventfeed.Limits{PerKey: 10, PerAccount: 10})
	hub.Keep = 5

	record := func(n int, from int) {
		events := make([]store.NewEvent, n)
		for i := range events {
			typ := []string{"payment.created", "payment.paid"}[(from+i)%2]
			events[i] = store.NewEvent{Scope: scope, Type: typ, ObjectID: fmt.Sprint(from + i), Data: json.RawMessage(`{}`), At: st.Now()}
		}
		require.NoError(t, st.RecordEvents(ctx, events))
	}
	sub, err := hub.Subscribe(scope, "key_a")
	require.NoError(t, err)
	start, err := st.StreamFrom(ctx, scope, "")
	require.NoError(t, err)
	// Written in three transactions while the feed polls: 23 events, of
	// which the feed keeps the last five.
	record(10, 0)
	time.Sleep(50 * time.Millisecond)
	record(8, 10)
	record(5, 18)
	require.Eventually(t, func() bool {
		_, next, err := sub.Read(ctx, start, nil, 100)
		return err == nil && next.ID != "" && len(drain(t, sub, start, nil)) == 23
	}, 5*time.Second, 20*time.Millisecond)

	for _, c := range []struct {
		types []string
		want  int
	}{{nil, 23}, {[]string{"payment.paid"}, 11}} {
		got := drain(t, sub, start, c.types)
		require.Len(t, got, c.want, "types %v", c.types)
		for i := 1; i < len(got); i++ {
			require.Less(t, atoi(got[i-1].ObjectID), atoi(got[i].ObjectID), "in order, once each")
		}
	}
	before := hub.Stats().StoreReads
	sub.Close()
	time.Sleep(100 * time.Millisecond)
	after := hub.Stats()
	require.Equal(t, eventfeed.Stats{Open: 0, Feeds: 0, StoreReads: after.StoreReads}, after)
	require.LessOrEqual(t, after.StoreReads-before, int64(1), "the feed stops with its last stream")
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, after.StoreReads, hub.Stats().StoreReads)
}

// drain reads everything after from in batches of 3.
func drain(t *testing.T, sub *eventfeed.Subscription, from store.StreamPosition, types []string) []store.Event {
	var out []store.Event
	for range 100 {
		events, next, err := sub.Read(context.Background(), from, types, 3)
		require.NoError(t, err)
		out = append(out, events...)
		if len(events) < 3 {
			return out
		}
		from = next
	}
	t.Fatal("never caught up")
	return nil
}

func atoi(s string) int {
	var n int
	_, _ = fmt.Sscan(s, &n)
	return n
}
