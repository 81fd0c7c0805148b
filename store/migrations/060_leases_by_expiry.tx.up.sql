-- The claim reads every live lease at every claim, in one plan made per
-- connection. Indexed by webhook, the leased deliveries were one of three
-- indexes that give webhook order, and a plan made with statistics taken
-- while most deliveries were leased read the full one (every delivery of
-- the month) or scanned the partition instead. Indexed by expiry, they are
-- the only index that gives what the claim asks for, the live leases in
-- the order they expire (lease_expires_at > now), whatever the statistics.
-- The same entries, so a lease costs the same writes.
DROP INDEX webhook_deliveries_leased_idx;
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (lease_expires_at) WHERE lease_token IS NOT NULL;
