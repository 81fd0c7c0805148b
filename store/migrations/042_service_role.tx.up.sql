-- The service runs as a role of its own (payments_service, whose members
-- log in: DATABASE_URL's user), not as the role that owns the tables and
-- runs these migrations (MIGRATE_DATABASE_URL's). The audit trail is then
-- append-only against the service's own credentials, not only against
-- honest code: the service may read audit_log and add to it, nothing else;
-- not being its owner, it cannot disable its trigger or truncate it, and
-- session_replication_role is a superuser's setting.
--
-- The history tables (events, deliveries, attempts, partitioned by month)
-- are the service's own: its maintenance jobs create and drop their
-- monthly partitions, which only an owner can.
--
-- A database whose migrating role may not make roles, and where no one
-- made payments_service beforehand (the README says how), keeps running
-- as one role, as before: nothing here applies to it but a notice.
DO $$
DECLARE
    t record;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_service') THEN
        IF NOT (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
            RAISE NOTICE 'payments_service does not exist and % may not create it: the service keeps running as the tables'' owner (README, "Database roles")', current_user;
            RETURN;
        END IF;
        CREATE ROLE payments_service NOLOGIN;
    END IF;
    -- Handing the history tables over needs a member's (or a superuser's) right.
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AND NOT pg_has_role(current_user, 'payments_service', 'MEMBER') THEN
        EXECUTE format('GRANT payments_service TO %I', current_user);
    END IF;

    GRANT USAGE ON SCHEMA public TO payments_service;
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO payments_service;
    GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO payments_service;
    -- What later migrations create (as this role) is the service's to use too.
    ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO payments_service;
    ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO payments_service;

    REVOKE ALL ON audit_log FROM PUBLIC;
    REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON audit_log FROM payments_service;
    GRANT SELECT, INSERT ON audit_log TO payments_service;

    FOR t IN
        SELECT c.relname FROM pg_class c
        WHERE c.relname IN ('events', 'webhook_deliveries', 'delivery_attempts') AND c.relnamespace = 'public'::regnamespace
        UNION
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent IN ('events'::regclass, 'webhook_deliveries'::regclass, 'delivery_attempts'::regclass)
    LOOP
        EXECUTE format('ALTER TABLE %I OWNER TO payments_service', t.relname);
    END LOOP;
END $$;

-- A month's partition belongs to the service, whoever asked for it (the
-- migrations at first, the service's maintenance job after). The service
-- may not create tables (PostgreSQL 15 gives no one CREATE on public): the
-- function creates the partition as its owner, these migrations' role, for
-- the history tables only. Without payments_service (one role), the
-- partition stays its creator's, as before.
CREATE OR REPLACE FUNCTION create_month_partition(parent text, prefix text, month date) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    part text := parent || '_' || to_char(month, 'YYYY_MM');
BEGIN
    IF parent NOT IN ('events', 'webhook_deliveries', 'delivery_attempts') THEN
        RAISE EXCEPTION 'create_month_partition: % is not a history table', parent USING ERRCODE = 'invalid_parameter_value';
    END IF;
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
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_service') THEN
        EXECUTE format('ALTER TABLE %I OWNER TO payments_service', part);
    END IF;
END $$;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_service') THEN
        REVOKE ALL ON FUNCTION create_month_partition(text, text, date) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION create_month_partition(text, text, date) TO payments_service;
    END IF;
END $$;
