-- Split payments: a charge's splits (up to 15: an account of the
-- platform's, a fixed amount or a percent in basis points, and who bears
-- the fee), as asked when it was made. What each part is once paid is a
-- function of them, the amount paid and the fee (store.SplitParts), so it
-- is not stored twice.
ALTER TABLE payments ADD COLUMN splits jsonb;

-- One source (a paid charge, a refund) now moves several accounts' money
-- with the same kind of entry: the charge's account's and each recipient's.
DROP INDEX ledger_entries_source_key;
CREATE UNIQUE INDEX ledger_entries_source_key ON ledger_entries (source_id, type, balance, account_id);

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN ('payment', 'fee', 'refund',
    'fee_refund', 'refund_reversal', 'fee_refund_reversal', 'dispute_hold', 'dispute_release', 'dispute_loss',
    'withdrawal', 'withdrawal_reversal', 'contest_return', 'split', 'split_return', 'split_return_reversal'));
