-- A session is valid while it carries its user's current epoch: changing
-- the password moves the epoch on, which signs out every other session
-- (in memory or in Redis alike).
ALTER TABLE users ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;
