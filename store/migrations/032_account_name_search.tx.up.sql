-- A merchant's search by the start of a customer's name, within the
-- account: the platform-wide index (migration 021, which support's search
-- keeps) found every account's matches first, 0.3 s for a name 37,000
-- payments share at 2M (BENCHMARKS.md, "At scale"). Its cost to the
-- creation of a payment is measured there too.
CREATE INDEX payments_account_name_fold_idx ON payments (account_id, livemode, search_fold(customer ->> 'name') text_pattern_ops)
    WHERE customer IS NOT NULL;
