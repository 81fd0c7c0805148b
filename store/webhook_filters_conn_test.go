package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/storetest"
)

// A writer reads the account's filtered webhooks, when what the store
// remembers has aged, through the connection it holds, never a second one
// from the pool: on a pool of one, a confirmation (its own connection, in
// two round trips) and an event written in a transaction each wait for
// ever for the connection they hold otherwise. With as many writers as the
// pool's connections, that was the PSP worker's notifications, hung in a
// fresh clone's make test.
func TestAWriterReadsFiltersThroughTheConnectionItHolds(t *testing.T) {
	t.Parallel()
	f := oneConnectionFixture(t, storetest.URL(t))
	st := f.st
	filter := "data.object.amount_cents >= 5000"
	wh, _, err := st.CreateWebhook(context.Background(), store.NewWebhook{Scope: f.scope, URL: "https://example.com/hooks",
		APIVersion: "v2", Events: []string{store.EventPaymentPaid, "test.filtered"}, Enabled: true, Filter: &filter})
	require.NoError(t, err)
	p := f.createPayment(5_000)

	deliveries := func(eventType string) int {
		var n int
		require.NoError(t, f.db.NewRaw(`SELECT count(*) FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
			WHERE d.webhook_id = ? AND e.type = ?`, wh.ID, eventType).Scan(context.Background(), &n))
		return n
	}
	st.ForgetFilters()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = st.MarkPaymentPaid(ctx, f.scope, p.ID.String(), nil)
	require.NoError(t, err, "the confirmation")
	require.Equal(t, 1, deliveries(store.EventPaymentPaid), "the filter passed the paid event")

	st.ForgetFilters()
	err = st.RecordEvents(ctx, []store.NewEvent{
		{Scope: f.scope, Type: "test.filtered", ObjectID: "a", Data: json.RawMessage(`{"amount_cents":4999}`), At: time.Now()},
		{Scope: f.scope, Type: "test.filtered", ObjectID: "b", Data: json.RawMessage(`{"amount_cents":5000}`), At: time.Now()},
	})
	require.NoError(t, err, "events written in a transaction")
	require.Equal(t, 1, deliveries("test.filtered"), "the filter passed one of the two")
}
