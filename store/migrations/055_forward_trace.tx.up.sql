-- Trace context to receivers (issue 51): an event keeps the tracestate of
-- the request that made it beside its traceparent, and a webhook that
-- asks for it (forward_trace) gets each attempt's traceparent and
-- tracestate as headers.
ALTER TABLE events ADD COLUMN tracestate text;
ALTER TABLE webhooks ADD COLUMN forward_trace boolean NOT NULL DEFAULT false;
