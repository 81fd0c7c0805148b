-- A person's sessions, listed on their security page: where and with what
-- they signed in, when last seen, ended by them (one or all others), by a
-- password change or reset (the epoch), or by the idle and absolute limits.
-- The browser's cookie holds another, random id (the session store's); this
-- id is kept inside the session.
CREATE TABLE user_sessions (
    id           text PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id),
    epoch        integer NOT NULL,
    ip           inet,
    user_agent   text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    ended_at     timestamptz
);
CREATE INDEX user_sessions_user ON user_sessions (user_id, last_seen_at DESC) WHERE ended_at IS NULL;
