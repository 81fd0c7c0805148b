-- An attempt is written in the same statement that finishes its delivery,
-- so the foreign key to webhook_deliveries only re-checked (and share-locked)
-- a row that statement already holds, on every attempt. Deliveries are only
-- ever deleted with their webhook, which still deletes its attempts through
-- delivery_attempts.webhook_id.
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_delivery_id_fkey;
