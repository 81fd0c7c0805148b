-- The W3C traceparent of the request that made an event (NULL when traces
-- are off): the dispatcher continues that trace in each delivery attempt.
ALTER TABLE events ADD COLUMN traceparent text;
