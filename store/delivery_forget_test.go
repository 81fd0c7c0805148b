package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/ids"
)

// An attempt whose delivery is gone (deleted with its webhook while the
// attempt was in flight) is forgotten; one whose delivery is still there
// (its lease was lost, not the delivery) stays.
func TestAnAttemptIsForgottenOnlyWhenItsDeliveryIsGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, webhooks, queues := deliveryQueues(t, 1, 1)
	d := queues[webhooks[0].ID][0]
	attempt := store.DeliveryAttempt{ID: ids.New(ids.PrefixAttempt), DeliveryID: &d.ID, WebhookID: d.WebhookID,
		EventID: d.EventID, EventType: d.EventType, Attempt: 1, RequestURL: "https://example.com/hooks",
		RequestHeaders: map[string]string{}, CreatedAt: time.Now()}
	_, err := st.DB().NewInsert().Model(&attempt).Exec(ctx)
	require.NoError(t, err)
	count := func() int {
		n, err := st.DB().NewSelect().Model((*store.DeliveryAttempt)(nil)).Where("id = ?", attempt.ID).Count(ctx)
		require.NoError(t, err)
		return int(n)
	}

	gone, err := st.ForgetAttemptOfDeletedDelivery(ctx, attempt.ID, d.ID)
	require.NoError(t, err)
	require.False(t, gone)
	require.Equal(t, 1, count(), "the delivery is there: its attempt stays")

	_, err = st.DB().NewDelete().Model((*store.Delivery)(nil)).Where("id = ?", d.ID).Exec(ctx)
	require.NoError(t, err)
	gone, err = st.ForgetAttemptOfDeletedDelivery(ctx, attempt.ID, d.ID)
	require.NoError(t, err)
	require.True(t, gone)
	require.Zero(t, count(), "the delivery is gone: so is its attempt")
}
