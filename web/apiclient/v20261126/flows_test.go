package v20261126

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// An integrator's client generated from the release of 2026-11-26's
// document (openapi.json beside this file, kept as it was), running that
// release's README flows against today's server: create with an
// Idempotency-Key, read, pay, refund with no body, a webhook with its
// secret, its deliveries filtered by status, the events. Each of issue
// 51's three breaks (a refund body, a nullable secret, the deliveries'
// status filter) is on this path.
func TestTheClientOfTheReleaseOf20261126StillRunsItsFlows(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	receiver := webtest.NewReceiver(t, nil)
	c, err := NewClientWithResponses(s.URL, WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+s.TestKey)
		return nil
	}))
	require.NoError(t, err)
	ctx := context.Background()
	key := func(k string) *IdempotencyKey { return &k }
	str := func(v string) *string { return &v }

	hook, err := c.CreateWebhookWithResponse(ctx, nil, CreateWebhookJSONRequestBody{Url: receiver.URL,
		Events: []EventType{"payment.created", "payment.paid", "payment.refunded"}})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hook.StatusCode(), "%s", hook.Body)
	require.Regexp(t, `^whsec_`, hook.JSON201.Secret, "the secret, shown once, a string as it was")

	body := CreatePaymentJSONRequestBody{AmountCents: 12990, Description: str("Pedido #1001"), ExternalId: str("order:1001")}
	created, err := c.CreatePaymentWithResponse(ctx, &CreatePaymentParams{IdempotencyKey: key("order-1001")}, body)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, created.StatusCode(), "%s", created.Body)
	p := created.JSON201
	require.Equal(t, PaymentStatus("pending"), p.Status)
	again, err := c.CreatePaymentWithResponse(ctx, &CreatePaymentParams{IdempotencyKey: key("order-1001")}, body)
	require.NoError(t, err)
	require.Equal(t, p.Id, again.JSON201.Id, "replayed")

	got, err := c.GetPaymentWithResponse(ctx, "order:1001")
	require.NoError(t, err)
	require.Equal(t, p.Id, got.JSON200.Id)

	paid, err := c.TestHelperPayPaymentWithResponse(ctx, p.Id.String(), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, paid.StatusCode(), "%s", paid.Body)
	require.Equal(t, PaymentStatus("paid"), paid.JSON200.Status)

	// The refund as that release made it: no body, the whole amount.
	refunded, err := c.RefundPaymentWithResponse(ctx, p.Id.String(), &RefundPaymentParams{IdempotencyKey: key("order-1001-refund")})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, refunded.StatusCode(), "%s", refunded.Body)
	require.Equal(t, PaymentStatus("refunded"), refunded.JSON200.Status)

	for s.Dispatcher.RunOnce(ctx, 10) > 0 {
	}
	receiver.WaitFor(3, 10*time.Second)
	status := DeliveryStatus("succeeded")
	deliveries, err := c.ListWebhookDeliveriesWithResponse(ctx, hook.JSON201.Id, &ListWebhookDeliveriesParams{Status: &status})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, deliveries.StatusCode(), "%s", deliveries.Body)
	require.Len(t, deliveries.JSON200.Data, 3, "created, paid and refunded, each delivered")

	events, err := c.ListEventsWithResponse(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, events.StatusCode(), "%s", events.Body)
	var types []EventType
	for _, e := range events.JSON200.Data {
		types = append(types, e.Type)
	}
	require.Equal(t, []EventType{"payment.refunded", "refund.succeeded", "payment.paid", "payment.created"}, types)
}
