-- MED 2.0 for money sent: a merchant defrauded or coerced into a
-- withdrawal contests it. The contest goes to the PSP (which asks the
-- receiving institution to block and return the money) and ends returned
-- in whole or in part (the amount credited back, contest_return) or
-- refused.
ALTER TABLE withdrawals
    ADD COLUMN contest_status text CHECK (contest_status IN ('pending', 'returned', 'partially_returned', 'refused')),
    ADD COLUMN contest_reason text CHECK (contest_reason IN ('fraud', 'coercion', 'operational_failure')),
    ADD COLUMN contest_description text,
    ADD COLUMN contested_at timestamptz,
    ADD COLUMN contest_returned_cents bigint CHECK (contest_returned_cents >= 0),
    ADD COLUMN contest_resolved_at timestamptz,
    ADD COLUMN contest_reference text,
    ADD CONSTRAINT withdrawals_contest_whole CHECK ((contest_status IS NULL) = (contested_at IS NULL) AND
        (contest_status IS NULL) = (contest_reason IS NULL) AND
        (contest_status IN ('returned', 'partially_returned', 'refused')) = (contest_resolved_at IS NOT NULL)),
    ADD CONSTRAINT withdrawals_contest_returns_what_left CHECK (contest_returned_cents <= amount_cents);
CREATE INDEX withdrawals_contest_pending_idx ON withdrawals (contested_at) WHERE contest_status = 'pending';

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN ('payment', 'fee', 'refund',
    'fee_refund', 'refund_reversal', 'fee_refund_reversal', 'dispute_hold', 'dispute_release', 'dispute_loss',
    'withdrawal', 'withdrawal_reversal', 'contest_return'));

-- Its PSP calls: the contest sent (PUT /v2/gn/med/{id}) and read back.
ALTER TABLE psp_calls DROP CONSTRAINT psp_calls_kind_check;
ALTER TABLE psp_calls ADD CONSTRAINT psp_calls_kind_check CHECK (kind IN ('cob.create', 'cob.remove', 'pix.confirm',
    'devolucao.create', 'devolucao.check', 'payout.create', 'payout.check', 'transfer.return', 'lotecobv.create',
    'lotecobv.check', 'rec.create', 'rec.check', 'rec.cancel', 'cobr.create', 'cobr.check', 'cobr.retry',
    'infracao.defesa', 'infracao.check', 'med.request', 'med.check'));
