-- A subscription's splits: each of its cycles' charges is split as it says.
ALTER TABLE subscriptions ADD COLUMN splits jsonb;
