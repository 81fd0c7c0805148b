-- What split charges moved for an account over a period (the overview's
-- card): its split entries alone, by time.
CREATE INDEX ledger_entries_split_idx ON ledger_entries (account_id, livemode, created_at)
    WHERE type IN ('split', 'split_return', 'split_return_reversal');
