package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

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

// A webhook with forward_trace gets each attempt's traceparent and
// tracestate; one without gets neither. Traced, the traceparent names the
// attempt's span, a child of the request's, in the caller's trace; not
// traced, the caller's own context goes through as it came; an event no
// caller's trace made sends none.
func TestForwardTraceHandsTheCallersTraceToTheReceiver(t *testing.T) {
	t.Parallel()
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	caller := map[string]string{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01", "tracestate": "loja=pedido-42,dd=s:1"}
	run := func(t *testing.T, opts ...webtest.Option) (s *webtest.Server, forwarded, plain []webtest.Received) {
		s = webtest.New(t, opts...)
		fwd, other := webtest.NewReceiver(t, nil), webtest.NewReceiver(t, nil)
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
			"url": fwd.URL, "events": []string{"payment.created", "payment.paid"}, "forward_trace": true}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		require.Equal(t, true, r.JSON(t)["forward_trace"])
		r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
			"url": other.URL, "events": []string{"payment.created"}}})
		require.Equal(t, false, r.JSON(t)["forward_trace"])
		r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{"amount_cents": 990},
			Headers: caller})
		require.Equal(t, http.StatusCreated, r.Status)
		require.Equal(t, 2, s.Dispatcher.RunOnce(t.Context(), 10))
		// A payment its payer pays at the checkout: no caller's trace.
		paid := s.Fund(s.TestKey, 500) // created without one, then paid
		require.NotEmpty(t, paid)
		for s.Dispatcher.RunOnce(t.Context(), 10) > 0 {
		}
		return s, fwd.WaitFor(3, 10*time.Second), other.WaitFor(2, 10*time.Second)
	}
	kinds := func(got []webtest.Received) map[string]http.Header {
		out := map[string]http.Header{}
		for _, g := range got {
			var e struct {
				Type string `json:"type"`
				Data struct {
					Object struct {
						AmountCents int `json:"amount_cents"`
					} `json:"object"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(g.Body, &e))
			out[fmt.Sprintf("%s %d", e.Type, e.Data.Object.AmountCents)] = g.Header
		}
		return out
	}

	t.Run("not traced", func(t *testing.T) {
		t.Parallel()
		_, forwarded, plain := run(t)
		got := kinds(forwarded)
		require.Equal(t, caller["traceparent"], got["payment.created 990"].Get("traceparent"), "the caller's context, as it came")
		require.Equal(t, caller["tracestate"], got["payment.created 990"].Get("tracestate"))
		require.Empty(t, got["payment.created 500"].Get("traceparent"), "no caller's trace: none sent")
		for _, h := range plain {
			require.Empty(t, h.Header.Get("traceparent"), "a webhook without forward_trace gets none")
			require.Empty(t, h.Header.Get("tracestate"))
		}
	})
	t.Run("traced", func(t *testing.T) {
		t.Parallel()
		exporter := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		_, forwarded, plain := run(t, webtest.WithTracer(tp.Tracer("payments")))
		h := kinds(forwarded)["payment.created 990"]
		attempts := map[string]bool{}
		for _, sp := range exporter.GetSpans() {
			if sp.Name == "webhook delivery" && sp.SpanContext.TraceID().String() == callerTrace {
				attempts[sp.SpanContext.SpanID().String()] = true
			}
		}
		parts := strings.Split(h.Get("traceparent"), "-")
		require.Len(t, parts, 4, "a W3C traceparent: %q", h.Get("traceparent"))
		require.Equal(t, []string{"00", callerTrace, "01"}, []string{parts[0], parts[1], parts[3]}, "the caller's trace, sampled")
		require.True(t, attempts[parts[2]], "through the attempt's own span, a child of the request's: %v", attempts)
		require.Equal(t, caller["tracestate"], h.Get("tracestate"), "the caller's vendors' state goes on")
		for _, r := range plain {
			require.Empty(t, r.Header.Get("traceparent"))
		}
	})
}
