-- The Events API and its stream. tx is the writing transaction: the stream
-- hands out events in (tx, id) order, and only below the oldest transaction
-- still running, so an event committed late is never skipped by a reader
-- already past its id.
ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();

-- "Recover since" and "resend an event" queue new deliveries of events a
-- webhook already had: a pair (event, webhook) may now have several, the
-- earlier ones kept as they ended.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_webhook_id_key;
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id, webhook_id);

-- Deliveries per second a webhook accepts (NULL: no limit), and the times of
-- its latest claims, the claim's sliding window (see claimSQL).
ALTER TABLE webhooks ADD COLUMN rate_limit integer CHECK (rate_limit BETWEEN 1 AND 1000);
ALTER TABLE webhooks ADD COLUMN rate_claims timestamptz[] NOT NULL DEFAULT '{}';
