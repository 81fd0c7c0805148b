-- A webhook whose ordered flag was turned off kept its queued deliveries'
-- order_key, and they went on waiting for one another. Turning it off now
-- clears them (UpdateWebhook); this clears what earlier switches left.
UPDATE webhook_deliveries d SET order_key = NULL
FROM webhooks w
WHERE w.id = d.webhook_id AND NOT w.ordered AND d.order_key IS NOT NULL AND d.status = 'pending';
