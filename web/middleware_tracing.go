package web

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"payments/tracing"
)

// carryTrace, with traces off, keeps the caller's trace context (its
// traceparent and tracestate) in the request's context without a span of
// the service's own: the events the request records carry it, and a
// webhook with forward_trace hands it on, so the caller's trace reaches
// their own webhook handler even so.
func carryTrace(c *fiber.Ctx) error {
	if len(c.Request().Header.Peek("traceparent")) > 0 {
		c.SetUserContext(tracing.FromHeaders(c.UserContext(), func(k string) string { return c.Get(k) }))
	}
	return c.Next()
}

// traceRequests makes a server span of each request, continuing the
// caller's trace when it sent a traceparent; handlers' contexts carry it,
// so the events a request records carry it too (the outbox's traceparent)
// and each delivery attempt joins the trace. Without a tracer (traces off)
// it is not in the chain at all.
func traceRequests(tracer trace.Tracer) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := tracing.FromHeaders(c.UserContext(), func(k string) string { return c.Get(k) })
		ctx, span := tracer.Start(ctx, c.Method(), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", strings.Clone(c.Method()))))
		defer span.End()
		c.SetUserContext(ctx)
		err := c.Next()
		if err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				span.SetStatus(codes.Error, herr.Error())
				return herr
			}
		}
		route, status := c.Route().Path, c.Response().StatusCode()
		span.SetName(strings.Clone(c.Method()) + " " + route)
		span.SetAttributes(attribute.String("http.route", route), attribute.Int("http.response.status_code", status),
			attribute.String("request.id", strings.Clone(c.GetRespHeader(HeaderRequestID))))
		if status >= 500 {
			span.SetStatus(codes.Error, "")
		}
		return nil
	}
}
