-- Replays of a window of events to a webhook (issue 51): every event of
-- the webhook's chosen types created in [from_at, to_at] is delivered
-- again, in chunks, by the maintenance loop, which keeps its place
-- (cursor_at, cursor_id) and its progress; one runs at a time per webhook.
CREATE TABLE webhook_replays (
    id            text PRIMARY KEY,
    webhook_id    text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    account_id    text NOT NULL,
    livemode      boolean NOT NULL,
    from_at       timestamptz NOT NULL,
    to_at         timestamptz NOT NULL,
    types         text[] NOT NULL,
    status        text NOT NULL CHECK (status IN ('running', 'completed')),
    events_total  integer NOT NULL,
    events_queued integer NOT NULL DEFAULT 0,
    cursor_at     timestamptz,
    cursor_id     text,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    completed_at  timestamptz,
    CHECK (from_at <= to_at)
);
CREATE UNIQUE INDEX webhook_replays_one_running ON webhook_replays (webhook_id) WHERE status = 'running';
CREATE INDEX webhook_replays_by_webhook ON webhook_replays (webhook_id, created_at DESC);
