-- A received Pix that paid nothing (no charge with its txid, the wrong
-- amount, a second transfer for a paid charge) can be returned to the payer:
-- a devolução of the whole transfer (PUT /pix/{e2eid}/devolucao/{id}), asked
-- by the merchant whose charge it names (or support), made by the PSP worker.
-- It never touched a balance, so its return does not either.
ALTER TABLE psp_notifications
    ADD COLUMN return_status  text CHECK (return_status IN ('pending', 'returned', 'failed')),
    ADD COLUMN return_id      text,
    ADD COLUMN return_rtr_id  text,
    ADD COLUMN return_failure text,
    ADD COLUMN returned_at    timestamptz;

ALTER TABLE psp_calls DROP CONSTRAINT psp_calls_kind_check;
ALTER TABLE psp_calls ADD CONSTRAINT psp_calls_kind_check CHECK (kind IN ('cob.create', 'cob.remove', 'pix.confirm',
    'devolucao.create', 'devolucao.check', 'payout.create', 'payout.check', 'transfer.return'));
