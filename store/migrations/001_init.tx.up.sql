-- Accounts are merchants. Pricing is per account and fixed on each payment at creation.
CREATE TABLE accounts (
    id              text PRIMARY KEY,
    name            text NOT NULL,
    email           text NOT NULL,
    fee_bps         integer NOT NULL CHECK (fee_bps BETWEEN 0 AND 10000),
    fee_fixed_cents integer NOT NULL CHECK (fee_fixed_cents >= 0),
    created_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email));

-- Dashboard users: an owner belongs to one account; support staff to none.
CREATE TABLE users (
    id            text PRIMARY KEY,
    account_id    text REFERENCES accounts (id),
    email         text NOT NULL,
    password_hash text NOT NULL,
    role          text NOT NULL CHECK (role IN ('owner', 'support')),
    created_at    timestamptz NOT NULL,
    CHECK ((role = 'owner') = (account_id IS NOT NULL))
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- API keys are stored as SHA-256 of the secret only; the secret is shown once.
CREATE TABLE api_keys (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    livemode    boolean NOT NULL,
    secret_hash bytea NOT NULL UNIQUE,
    redacted    text NOT NULL,
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id, created_at);

CREATE TABLE payments (
    id             uuid PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id),
    livemode       boolean NOT NULL,
    status         text NOT NULL CHECK (status IN ('pending', 'paid', 'expired', 'canceled', 'refunded')),
    amount_cents   bigint NOT NULL CHECK (amount_cents > 0),
    currency       text NOT NULL,
    payment_method text NOT NULL,
    description    text,
    external_id    text,
    customer       jsonb,
    metadata       jsonb NOT NULL,
    correlation_id text NOT NULL,
    fee_cents      bigint NOT NULL CHECK (fee_cents >= 0),
    br_code        text NOT NULL,
    qr_code_url    text NOT NULL,
    checkout_url   text NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    paid_at        timestamptz,
    canceled_at    timestamptz,
    expired_at     timestamptz
);
CREATE UNIQUE INDEX payments_correlation_id_key ON payments (correlation_id);
CREATE UNIQUE INDEX payments_external_id_key ON payments (account_id, livemode, external_id)
    WHERE external_id IS NOT NULL;
-- Ids are UUIDv7, so id order is creation order: the list and its cursors walk this index.
CREATE INDEX payments_list_idx ON payments (account_id, livemode, id DESC);
CREATE INDEX payments_status_list_idx ON payments (account_id, livemode, status, id DESC);
CREATE INDEX payments_pending_expiry_idx ON payments (expires_at) WHERE status = 'pending';

-- The outbox: one row per state change, written in the state change's transaction.
-- data is the object as it was at that moment; json (not jsonb) keeps its bytes as written.
CREATE TABLE events (
    id         text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    livemode   boolean NOT NULL,
    type       text NOT NULL,
    object_id  text NOT NULL,
    data       json NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX events_object_idx ON events (object_id, created_at);
CREATE INDEX events_account_idx ON events (account_id, livemode, created_at DESC);

-- Responses to POSTs carrying an Idempotency-Key, kept 24h per account and mode.
CREATE TABLE idempotency_keys (
    account_id      text NOT NULL,
    livemode        boolean NOT NULL,
    key             text NOT NULL,
    request_hash    bytea NOT NULL,
    response_status integer NOT NULL,
    response_body   bytea NOT NULL,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (account_id, livemode, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
