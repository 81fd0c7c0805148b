-- Lookups that stay fast however much history is stored (issue: scale).
-- Built in the migration's transaction: writes to these two tables wait
-- while they build (BENCHMARKS.md, "At scale", has the time at 4M
-- attempts; CONCURRENTLY would not wait, but deadlocks against a second
-- process waiting for the migration lock).

-- The webhook health panel: a webhook's attempts of the last 24 h...
CREATE INDEX delivery_attempts_webhook_idx ON delivery_attempts (webhook_id, created_at DESC) INCLUDE (response_status);
-- ... and its last failure (few rows: most attempts succeed).
CREATE INDEX delivery_attempts_failure_idx ON delivery_attempts (webhook_id, created_at DESC)
    WHERE response_status IS NULL OR response_status NOT BETWEEN 200 AND 299;
-- Events not acknowledged (GET /api/v1/events?delivery_success=false):
-- found from their failed deliveries (pending ones have their own index).
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (webhook_id, created_at DESC)
    WHERE status = 'failed';
