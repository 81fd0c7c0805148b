-- A webhook whose recent attempts are slow (or time out) is in the slow
-- lane since then: its deliveries share a small part of each dispatcher's
-- workers, so one merchant's slow server holds no one else's deliveries
-- back. NULL: it answers fast. The dispatcher alone writes it
-- (dispatcher/lanes.go), as it does paused_until.
ALTER TABLE webhooks ADD COLUMN slow_since timestamptz;
