-- Ordered delivery: a webhook with ordered = true gets the deliveries of one
-- object (the payment, subscription, refund or withdrawal an event is
-- about) in the order they were queued. Its deliveries carry that object's
-- id in order_key (the outbox writes it; NULL for every other webhook, so
-- unordered deliveries pay nothing); a delivery is claimed only when no
-- earlier pending delivery of its webhook has its key, which this index
-- answers with one probe (it holds pending ordered deliveries only).
ALTER TABLE webhooks ADD COLUMN ordered boolean NOT NULL DEFAULT false;
ALTER TABLE webhook_deliveries ADD COLUMN order_key text;
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (webhook_id, order_key, created_at, id)
    WHERE status = 'pending' AND order_key IS NOT NULL;
