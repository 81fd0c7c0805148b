-- Who asked for each change: every operation records its actor (a user, an
-- API key, an admin command, the PSP, or the service itself) with what it
-- did, in the transaction of the change. A change that makes an event says
-- so on the event row (actor); one that makes none (webhook settings, API
-- keys, preferences) writes an audit_log row. audit_trail reads both as one.
ALTER TABLE events ADD COLUMN actor text NOT NULL DEFAULT 'system';

CREATE TABLE audit_log (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id text NOT NULL,
    livemode   boolean NOT NULL,
    action     text NOT NULL,
    object_id  text NOT NULL,
    actor      text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX audit_log_account_created ON audit_log (account_id, created_at DESC);

CREATE VIEW audit_trail AS
    SELECT account_id, livemode, type AS action, object_id, actor, created_at FROM events WHERE NOT sample
    UNION ALL
    SELECT account_id, livemode, action, object_id, actor, created_at FROM audit_log;
