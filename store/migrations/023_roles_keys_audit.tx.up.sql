-- Team and roles: a user belongs to accounts through memberships, each with
-- its role; users.role now only tells platform staff (support) from
-- members, and users.account_id is the account a member signs in to first.
CREATE TABLE memberships (
    account_id text NOT NULL REFERENCES accounts (id),
    user_id    text NOT NULL REFERENCES users (id),
    role       text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'viewer')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);
INSERT INTO memberships (account_id, user_id, role, created_at)
    SELECT account_id, id, 'owner', created_at FROM users WHERE account_id IS NOT NULL;
ALTER TABLE users DROP CONSTRAINT users_check;
ALTER TABLE users DROP CONSTRAINT users_role_check;
UPDATE users SET role = 'member' WHERE role = 'owner';
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('member', 'support'));
ALTER TABLE users ADD CONSTRAINT users_staff_without_account CHECK (role = 'member' OR account_id IS NULL);

-- API keys: a name, who made it, when and from where it was last used
-- (written in batches, not per request), restricted keys' permissions
-- (NULL: every permission, the sk_ keys) and an optional allow-list.
ALTER TABLE api_keys
    ADD COLUMN name         text NOT NULL DEFAULT '',
    ADD COLUMN created_by   text NOT NULL DEFAULT '',
    ADD COLUMN permissions  text[],
    ADD COLUMN allowed_ips  cidr[],
    ADD COLUMN last_used_at timestamptz,
    ADD COLUMN last_used_ip inet;

-- The audit trail: one row per change, from any door, append-only and kept
-- five years (no job prunes it). Rows say who (and their name then), the
-- door, the address, user agent and request id, and what changed.
ALTER TABLE audit_log
    ADD COLUMN actor_name text NOT NULL DEFAULT '',
    ADD COLUMN door       text NOT NULL DEFAULT 'system',
    ADD COLUMN ip         inet,
    ADD COLUMN user_agent text NOT NULL DEFAULT '',
    ADD COLUMN request_id text NOT NULL DEFAULT '',
    ADD COLUMN changes    jsonb NOT NULL DEFAULT '{}';
-- An object's history; a person's rows are read through the account's
-- index by date (one index more on the hottest write cost it 5-10%).
CREATE INDEX audit_log_account_object ON audit_log (account_id, object_id);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- Every change now writes its audit row (events keep their actor too): the
-- trail is the audit log alone.
DROP VIEW audit_trail;
CREATE VIEW audit_trail AS
    SELECT id, account_id, livemode, action, object_id, actor, actor_name, door, ip, user_agent, request_id, changes, created_at
    FROM audit_log;
