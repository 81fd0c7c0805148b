-- The dispatcher claims each enabled webhook's earliest due deliveries with
-- one index probe per webhook, instead of ranking every due row.
CREATE INDEX webhook_deliveries_claim_idx ON webhook_deliveries (webhook_id, next_attempt_at, id) WHERE status = 'pending';
