-- Webhook endpoints. Secrets are sealed with AES-256-GCM under SECRET_KEY;
-- during a rotation the previous secret keeps signing until it expires.
CREATE TABLE webhooks (
    id                         text PRIMARY KEY,
    account_id                 text NOT NULL REFERENCES accounts (id),
    livemode                   boolean NOT NULL,
    name                       text NOT NULL,
    url                        text NOT NULL,
    api_version                text NOT NULL CHECK (api_version IN ('v1', 'v2')),
    events                     text[] NOT NULL CHECK (cardinality(events) >= 1),
    enabled                    boolean NOT NULL,
    disabled_reason            text CHECK (disabled_reason IN ('manual', 'endpoint_gone', 'failing')),
    secret_sealed              bytea NOT NULL,
    secret_hint                text NOT NULL,
    previous_secret_sealed     bytea,
    previous_secret_expires_at timestamptz,
    -- Start of the current run of failed attempts (NULL after a success) and its length.
    failing_since              timestamptz,
    failures_since             integer NOT NULL DEFAULT 0,
    created_at                 timestamptz NOT NULL,
    updated_at                 timestamptz NOT NULL
);
CREATE INDEX webhooks_account_idx ON webhooks (account_id, livemode);

-- The delivery queue: one row per (event, webhook), claimed with a lease.
CREATE TABLE webhook_deliveries (
    id               text PRIMARY KEY,
    event_id         text NOT NULL REFERENCES events (id),
    webhook_id       text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    account_id       text NOT NULL,
    livemode         boolean NOT NULL,
    event_type       text NOT NULL,
    status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    lease_token      text,
    lease_expires_at timestamptz,
    last_status_code integer,
    last_error       text,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    completed_at     timestamptz,
    UNIQUE (event_id, webhook_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (webhook_id) WHERE lease_token IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);

-- Every HTTP attempt, as sent and as answered. delivery_id is NULL for "send test".
CREATE TABLE delivery_attempts (
    id               text PRIMARY KEY,
    delivery_id      text REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    webhook_id       text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id         text NOT NULL,
    event_type       text NOT NULL,
    attempt          integer NOT NULL,
    request_url      text NOT NULL,
    request_headers  jsonb NOT NULL,
    request_body     text NOT NULL,
    response_status  integer,
    response_headers jsonb,
    response_body    bytea,
    duration_ms      integer NOT NULL,
    error_class      text,
    error_message    text,
    created_at       timestamptz NOT NULL
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, created_at);
CREATE INDEX delivery_attempts_webhook_idx ON delivery_attempts (webhook_id, created_at DESC);
CREATE INDEX delivery_attempts_created_idx ON delivery_attempts (created_at);
