-- Pix Automático live: the PSP names the recurrence (rec_id, null until it
-- has), its QR's location (locrec) and, on payer_bank_request, the request
-- pushed to the payer's bank (solicrec, to payer->'bank_account').
ALTER TABLE subscriptions
    ALTER COLUMN rec_id DROP NOT NULL,
    ADD COLUMN psp_loc_id         bigint,
    ADD COLUMN psp_location       text,
    ADD COLUMN solicrec_id        text,
    ADD COLUMN psp_checked_at     timestamptz;
-- The reconciler's walk: live recurrences the PSP may have changed, least
-- recently checked first.
CREATE INDEX subscriptions_psp_check_idx ON subscriptions (psp_checked_at NULLS FIRST)
    WHERE livemode AND status IN ('created', 'awaiting_authorization', 'active');

ALTER TABLE psp_calls DROP CONSTRAINT psp_calls_kind_check;
ALTER TABLE psp_calls ADD CONSTRAINT psp_calls_kind_check CHECK (kind IN ('cob.create', 'cob.remove', 'pix.confirm',
    'devolucao.create', 'devolucao.check', 'payout.create', 'payout.check', 'transfer.return',
    'lotecobv.create', 'lotecobv.check',
    'rec.create', 'rec.check', 'rec.cancel', 'cobr.create', 'cobr.check', 'cobr.retry'));
