-- When the dispatcher that claimed a delivery was woken for it (a NOTIFY,
-- its poll, a freed worker) and when it claimed it: with the event's
-- created_at and the attempt's times, the timeline `make bench` prints for
-- its slowest deliveries.
ALTER TABLE webhook_deliveries ADD COLUMN woken_at timestamptz, ADD COLUMN claimed_at timestamptz;
