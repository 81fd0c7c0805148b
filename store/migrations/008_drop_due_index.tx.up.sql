-- Claims now walk webhook_deliveries_claim_idx per webhook; the global due
-- index only cost a write on every lease and finish.
DROP INDEX webhook_deliveries_due_idx;
