-- Payload filters (issue 51): a webhook's CEL expression over the event
-- (store/eventfilter), null for none. The outbox queues a delivery to a
-- filtered webhook only for the events its filter passed, which the
-- writer evaluates and names in the statement (outboxCTEs' passed).
ALTER TABLE webhooks ADD COLUMN filter text;
