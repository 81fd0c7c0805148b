-- Events, deliveries and attempts grow with every payment for as long as
-- the service runs: each becomes a table of monthly partitions, so that
-- retention drops a month whole (seconds, no dead rows) instead of
-- deleting row by row. They are partitioned by id: ids are UUIDv7 in
-- base62 (store/ids), so id order is creation order, a month is a range of
-- ids, and every lookup by id (claims, finishes, GET /events/{id}) reaches
-- one partition. Ids compare byte by byte (COLLATE "C"), the order their
-- alphabet is in.
--
-- What existed before this migration is not rewritten: each old table
-- becomes one partition (<table>_before_<yyyy_mm>, every id before that
-- month), dropped whole once that month's start is past retention. The
-- cost on an existing database is a scan of each table (the proof its ids
-- are below the bound) and the rebuild of its indexes on id; BENCHMARKS.md
-- ("Partitions") has the time at 4M rows, during which writes wait.

-- The least id of prefix made at t or after; ids.Floor is the same in Go.
CREATE FUNCTION id_floor(prefix text, t timestamptz) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    alphabet CONSTANT text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    -- The UUIDv7 with t's millisecond and every other bit its least:
    -- version 7 (0x7000 in bytes 6-7) and the RFC 4122 variant (0x80 in byte 8).
    n numeric := floor(extract(epoch FROM t) * 1000) * 2::numeric ^ 80
        + 28672 * 2::numeric ^ 64 + 128 * 2::numeric ^ 56;
    digits text := '';
BEGIN
    FOR i IN 1..22 LOOP
        digits := substr(alphabet, (n % 62)::int + 1, 1) || digits;
        n := div(n, 62);
    END LOOP;
    RETURN prefix || '_' || digits;
END $$;

-- Creates parent's partition for the month (UTC) that starts on month, if
-- it is not there yet. The maintenance job keeps months ahead of time.
CREATE FUNCTION create_month_partition(parent text, prefix text, month date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    part text := parent || '_' || to_char(month, 'YYYY_MM');
BEGIN
    -- Several dispatchers keep the months: one makes each.
    PERFORM pg_advisory_xact_lock(hashtext('create_month_partition'));
    IF to_regclass(part) IS NOT NULL THEN
        RETURN;
    END IF;
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', part, parent,
        id_floor(prefix, month::timestamp AT TIME ZONE 'UTC'),
        id_floor(prefix, (month + interval '1 month') AT TIME ZONE 'UTC'));
    IF parent = 'delivery_attempts' THEN
        -- Attempts stay inline, uncompressed (migration 017); a partitioned
        -- table cannot carry the setting for its partitions.
        EXECUTE format('ALTER TABLE %I SET (toast_tuple_target = 8160)', part);
    END IF;
END $$;

-- Moves parent and its indexes aside (<name>_old) for the new parent.
CREATE FUNCTION pg_temp.set_aside(parent text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    idx record;
BEGIN
    FOR idx IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = parent::regclass
    LOOP
        EXECUTE format('ALTER INDEX %I RENAME TO %I', idx.relname, replace(idx.relname, parent, parent || '_old'));
    END LOOP;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', parent, parent || '_old');
END $$;

-- Makes <parent>_old the partition of every id before next month when it
-- holds rows (dropping it when empty), then creates the months ahead.
CREATE FUNCTION pg_temp.adopt(parent text, prefix text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    old text := parent || '_old';
    next_month date := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month')::date;
    first date := next_month - interval '1 month';
    bound text := id_floor(prefix, next_month::timestamp AT TIME ZONE 'UTC');
    has_rows boolean;
    idx record;
BEGIN
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', old) INTO has_rows;
    IF NOT has_rows THEN
        EXECUTE format('DROP TABLE %I', old);
    ELSE
        EXECUTE format('ALTER TABLE %I ALTER COLUMN id TYPE text COLLATE "C"', old);
        -- Proves the partition bound, so ATTACH does not scan again.
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (id < %L)', old, old || '_bound', bound);
        EXECUTE format('ALTER TABLE %I RENAME TO %I', old, parent || '_before_' || to_char(next_month, 'YYYY_MM'));
        old := parent || '_before_' || to_char(next_month, 'YYYY_MM');
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', parent, old, bound);
        -- Its indexes now belong to the parent's; their names say so.
        FOR idx IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = old::regclass AND c.relname LIKE parent || '\_old%'
        LOOP
            EXECUTE format('ALTER INDEX %I RENAME TO %I', idx.relname,
                replace(idx.relname, parent || '_old', old));
        END LOOP;
        first := next_month;
    END IF;
    FOR m IN 0..1 LOOP
        PERFORM create_month_partition(parent, prefix, (first + m * interval '1 month')::date);
    END LOOP;
END $$;

-- Deliveries are written by the statement that writes their event and go
-- with its month: the foreign key would keep a month's events from being
-- dropped before a scan of every delivery.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
-- Only retention read it, row by row.
DROP INDEX delivery_attempts_created_idx;

SELECT pg_temp.set_aside('events');
CREATE TABLE events (
    id          text COLLATE "C" NOT NULL,
    account_id  text NOT NULL REFERENCES accounts (id),
    livemode    boolean NOT NULL,
    type        text NOT NULL,
    object_id   text NOT NULL,
    data        json NOT NULL,
    created_at  timestamptz NOT NULL,
    sample      boolean NOT NULL DEFAULT false,
    tx          xid8 NOT NULL DEFAULT pg_current_xact_id(),
    traceparent text,
    actor       text NOT NULL DEFAULT 'system',
    PRIMARY KEY (id)
) PARTITION BY RANGE (id);
CREATE INDEX events_object_idx ON events (object_id, created_at);
CREATE INDEX events_account_idx ON events (account_id, livemode, created_at DESC);
SELECT pg_temp.adopt('events', 'evt');

SELECT pg_temp.set_aside('webhook_deliveries');
CREATE TABLE webhook_deliveries (
    id               text COLLATE "C" NOT NULL,
    event_id         text NOT NULL,
    webhook_id       text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    account_id       text NOT NULL,
    livemode         boolean NOT NULL,
    event_type       text NOT NULL,
    status           text NOT NULL CONSTRAINT webhook_deliveries_status_check
                         CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    lease_token      text,
    lease_expires_at timestamptz,
    last_status_code integer,
    last_error       text,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    completed_at     timestamptz,
    test             boolean NOT NULL DEFAULT false,
    woken_at         timestamptz,
    claimed_at       timestamptz,
    PRIMARY KEY (id)
) PARTITION BY RANGE (id);
CREATE INDEX webhook_deliveries_claim_idx ON webhook_deliveries (webhook_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id, webhook_id);
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (webhook_id, created_at DESC) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (webhook_id) WHERE lease_token IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
SELECT pg_temp.adopt('webhook_deliveries', 'whd');

SELECT pg_temp.set_aside('delivery_attempts');
CREATE TABLE delivery_attempts (
    id               text COLLATE "C" NOT NULL,
    delivery_id      text,
    webhook_id       text NOT NULL,
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
    created_at       timestamptz NOT NULL,
    PRIMARY KEY (id)
) PARTITION BY RANGE (id);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, created_at);
CREATE INDEX delivery_attempts_test_idx ON delivery_attempts (webhook_id, created_at DESC) WHERE delivery_id IS NULL;
CREATE INDEX delivery_attempts_webhook_idx ON delivery_attempts (webhook_id, created_at DESC) INCLUDE (response_status);
CREATE INDEX delivery_attempts_failure_idx ON delivery_attempts (webhook_id, created_at DESC)
    WHERE response_status IS NULL OR response_status NOT BETWEEN 200 AND 299;
SELECT pg_temp.adopt('delivery_attempts', 'dlv');
