package web_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"payments/web/webtest"
)

// One trace from the caller's request through the outbox to the delivery
// attempt: the API's server span continues the caller's traceparent, and
// each attempt's span is its child, for a creation (batched statement) and
// for a state change (the test helper's pay).
func TestTraceFollowsAnEventFromRequestToDelivery(t *testing.T) {
	t.Parallel()
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := webtest.New(t, webtest.WithTracer(tp.Tracer("payments")))
	recv := webtest.NewReceiver(t, nil)
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})

	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{"amount_cents": 990},
		Headers: map[string]string{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}})
	require.Equal(t, http.StatusCreated, r.Status)
	id := r.JSON(t)["id"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey}).Status)
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 10))

	spans := exporter.GetSpans()
	byName := func(name string) []tracetest.SpanStub {
		var out []tracetest.SpanStub
		for _, sp := range spans {
			if sp.Name == name {
				out = append(out, sp)
			}
		}
		return out
	}
	create := byName("POST /api/v1/payments")
	require.Len(t, create, 1)
	require.Equal(t, callerTrace, create[0].SpanContext.TraceID().String(), "the caller's trace goes on")
	require.Equal(t, callerSpan, create[0].Parent.SpanID().String())
	require.Equal(t, trace.SpanKindServer, create[0].SpanKind)
	pay := byName("POST /api/v1/test_helpers/payments/:ref/pay")
	require.Len(t, pay, 1)

	deliveries := byName("webhook delivery")
	require.Len(t, deliveries, 2)
	parents := map[string]string{}
	for _, d := range deliveries {
		for _, a := range d.Attributes {
			if a.Key == "event.type" {
				parents[a.Value.AsString()] = d.Parent.SpanID().String()
			}
		}
		require.Equal(t, trace.SpanKindClient, d.SpanKind)
	}
	require.Equal(t, create[0].SpanContext.SpanID().String(), parents["payment.created"], "the creation's attempt is its request's child")
	require.Equal(t, pay[0].SpanContext.SpanID().String(), parents["payment.paid"], "the payment's attempt is its request's child")
}
