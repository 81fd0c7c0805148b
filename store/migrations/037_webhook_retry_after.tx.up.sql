-- A receiver that answers 429 or 503 with Retry-After pauses its webhook
-- until then: claims skip the webhook and a success does not chain into
-- its next delivery while paused_until is ahead (the delivery that was
-- answered so waits at least as long).
ALTER TABLE webhooks ADD COLUMN paused_until timestamptz;
