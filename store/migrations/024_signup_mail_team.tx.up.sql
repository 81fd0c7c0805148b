-- Sign-up, e-mail and the team.

-- A business signs up with its CNPJ or CPF; live mode stays off for an
-- account until platform staff activate it (accounts made before this
-- migration were activated by the operator who made them).
ALTER TABLE accounts ADD COLUMN document text;
ALTER TABLE accounts ADD COLUMN live_enabled_at timestamptz;
UPDATE accounts SET live_enabled_at = created_at;

-- A person's name, and when they proved their e-mail address.
ALTER TABLE users ADD COLUMN name text NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;

-- Single-use links sent by e-mail: verifying an address, resetting a
-- password, joining an account. Only the SHA-256 of the token is kept.
CREATE TABLE email_tokens (
    id         text PRIMARY KEY,
    kind       text NOT NULL CHECK (kind IN ('verify_email', 'reset_password', 'invitation')),
    token_hash bytea NOT NULL UNIQUE,
    email      text NOT NULL,
    user_id    text REFERENCES users (id),
    -- An invitation's account and role, and who invited.
    account_id text REFERENCES accounts (id),
    role       text CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'viewer')),
    invited_by text,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    CHECK ((kind = 'invitation') = (account_id IS NOT NULL AND role IS NOT NULL))
);
CREATE INDEX email_tokens_account ON email_tokens (account_id, created_at DESC) WHERE kind = 'invitation';

-- The e-mail outbox: every message is a row written in the transaction of
-- the change that sends it, and the dispatcher's mailer renders it (kind,
-- in the recipient's language) and sends it over SMTP. What it is rendered
-- from may carry a single-use link: sealed with SECRET_KEY, and blanked
-- once sent.
CREATE TABLE emails (
    id              text PRIMARY KEY,
    account_id      text,
    to_address      text NOT NULL,
    kind            text NOT NULL,
    locale          text NOT NULL,
    data_sealed     bytea,
    status          text NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    lease_token     text,
    leased_until    timestamptz,
    last_error      text,
    created_at      timestamptz NOT NULL,
    sent_at         timestamptz
);
CREATE INDEX emails_due ON emails (next_attempt_at) WHERE status = 'pending';

-- Two-factor: a TOTP secret (RFC 6238, sealed with SECRET_KEY) with the
-- last time step accepted (a code works once), ten recovery codes (SHA-256
-- of each: they are random, long and single-use), and passkeys (WebAuthn
-- credentials, public keys only).
ALTER TABLE users ADD COLUMN totp_secret_sealed bytea;
ALTER TABLE users ADD COLUMN totp_enabled_at timestamptz;
ALTER TABLE users ADD COLUMN totp_last_step bigint NOT NULL DEFAULT 0;
CREATE TABLE recovery_codes (
    user_id    text NOT NULL REFERENCES users (id),
    code_hash  bytea NOT NULL,
    created_at timestamptz NOT NULL,
    used_at    timestamptz,
    PRIMARY KEY (user_id, code_hash)
);
CREATE TABLE passkeys (
    id           bytea PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id),
    name         text NOT NULL,
    credential   jsonb NOT NULL,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz
);
CREATE INDEX passkeys_user ON passkeys (user_id);
