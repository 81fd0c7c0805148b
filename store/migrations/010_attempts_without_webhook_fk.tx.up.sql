-- Every delivery attempt re-checked (and key-share locked) its webhook's row
-- through this foreign key: concurrent attempts to one webhook all locked the
-- same row, so each lock became a multixact and a write to the webhooks page
-- (about 4% of PostgreSQL's CPU in a one-webhook drain, by perf). The check
-- guarded nothing the finish statement does not: it records an attempt for
-- the delivery it holds the lease of. DeleteWebhook now deletes a webhook's
-- attempts itself, in the transaction that deletes the webhook.
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_webhook_id_fkey;
-- Only "send test" attempts (no delivery) are listed by webhook; a delivery's
-- attempts are reached through delivery_attempts_delivery_idx. Attempts made
-- by deliveries no longer pay for this index.
DROP INDEX delivery_attempts_webhook_idx;
CREATE INDEX delivery_attempts_test_idx ON delivery_attempts (webhook_id, created_at DESC) WHERE delivery_id IS NULL;
