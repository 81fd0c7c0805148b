// Package tracing sets up OpenTelemetry traces: off (a no-op provider)
// unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set, then
// exported over OTLP/HTTP with the standard OTEL_* variables. A trace
// follows a state change from the API request through the outbox (its
// events carry the request's W3C traceparent) to each delivery attempt.
package tracing

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Name is the instrumentation scope of every span.
const Name = "payments"

// Config is what main read of the OTEL_* variables.
type Config struct {
	// Endpoint is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
	// OTEL_EXPORTER_OTLP_ENDPOINT: traces are on when it is set. The
	// exporter reads the other OTEL_EXPORTER_OTLP_* variables itself.
	Endpoint string
	// ServiceName is OTEL_SERVICE_NAME, "payments" when unset.
	ServiceName string
}

// Setup returns the tracer provider the configuration asks for and the
// function that flushes it at exit.
func Setup(ctx context.Context, cfg Config, role string) (trace.TracerProvider, func(context.Context) error, error) {
	if cfg.Endpoint == "" {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, nil
	}
	if cfg.ServiceName == "" {
		cfg.ServiceName = "payments"
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		semconv.ServiceName(cfg.ServiceName), semconv.ServiceInstanceID(instanceID()),
		attribute.String("payments.role", role)))
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

func instanceID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}

var propagator = propagation.TraceContext{}

// TraceParent is ctx's span as a W3C traceparent, "" without one.
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	carrier := propagation.MapCarrier{}
	propagator.Inject(ctx, carrier)
	return carrier["traceparent"]
}

// TraceState is ctx's span's W3C tracestate, "" without one.
func TraceState(ctx context.Context) string {
	return trace.SpanContextFromContext(ctx).TraceState().String()
}

// Headers are ctx's span as the W3C traceparent and tracestate headers
// (none without a span; no tracestate when it is empty).
func Headers(ctx context.Context) map[string]string {
	carrier := propagation.MapCarrier{}
	if trace.SpanContextFromContext(ctx).IsValid() {
		propagator.Inject(ctx, carrier)
	}
	return carrier
}

// FromTraceParent is ctx carrying the remote span traceparent (and
// tracestate, "" for none) name.
func FromTraceParent(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": traceparent}
	if tracestate != "" {
		carrier["tracestate"] = tracestate
	}
	return propagator.Extract(ctx, carrier)
}

// FromHeaders is ctx carrying the caller's span, from its traceparent and
// tracestate headers.
func FromHeaders(ctx context.Context, get func(string) string) context.Context {
	return propagator.Extract(ctx, headerCarrier(get))
}

type headerCarrier func(string) string

func (h headerCarrier) Get(key string) string { return h(key) }
func (h headerCarrier) Set(string, string)    {}
func (h headerCarrier) Keys() []string        { return []string{"traceparent", "tracestate"} }
