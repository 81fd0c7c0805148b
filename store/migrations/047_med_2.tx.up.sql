-- MED 2.0 (mandatory since 2 February 2026) for money received. A dispute
-- is an infração the payer's bank reported: its grounds (fraud, coercion,
-- an institution's operational failure), the amount reported and the
-- amount held (amount_cents: what was still the merchant's of it), its
-- stage beside its status (blocked -> under_review -> decided), the
-- merchant's deadline to answer and the institutions' deadlines to analyse
-- (7 days) and to return (11 days), and the merchant's defense with its
-- evidence. A payment may have several: the payer's bank may report more
-- than one.
ALTER TABLE disputes DROP CONSTRAINT disputes_payment_id_key;
CREATE INDEX disputes_payment_idx ON disputes (payment_id);

ALTER TABLE disputes DROP CONSTRAINT disputes_reason_check;
ALTER TABLE disputes ADD CONSTRAINT disputes_reason_check CHECK (reason IN ('fraud', 'coercion', 'operational_failure'));

ALTER TABLE disputes ADD COLUMN amount_reported_cents bigint;
-- Before, a dispute claimed the whole payment.
UPDATE disputes d SET amount_reported_cents = greatest(d.amount_cents,
    (SELECT CASE WHEN p.amount_paid_cents > 0 THEN p.amount_paid_cents ELSE p.amount_cents END FROM payments p WHERE p.id = d.payment_id));
ALTER TABLE disputes ALTER COLUMN amount_reported_cents SET NOT NULL;
ALTER TABLE disputes ADD CONSTRAINT disputes_held_within_reported CHECK (amount_cents <= amount_reported_cents);

ALTER TABLE disputes ADD COLUMN stage text NOT NULL DEFAULT 'blocked'
    CHECK (stage IN ('blocked', 'under_review', 'decided'));
UPDATE disputes SET stage = 'decided' WHERE status <> 'open';
ALTER TABLE disputes ALTER COLUMN stage DROP DEFAULT;
ALTER TABLE disputes ADD CONSTRAINT disputes_decided_when_closed CHECK ((status = 'open') = (stage <> 'decided'));

ALTER TABLE disputes ADD COLUMN respond_by timestamptz, ADD COLUMN analysis_deadline timestamptz,
    ADD COLUMN return_deadline timestamptz;
UPDATE disputes SET respond_by = created_at + interval '3 days', analysis_deadline = created_at + interval '7 days',
    return_deadline = created_at + interval '11 days';
ALTER TABLE disputes ALTER COLUMN respond_by SET NOT NULL, ALTER COLUMN analysis_deadline SET NOT NULL,
    ALTER COLUMN return_deadline SET NOT NULL;

ALTER TABLE disputes ADD COLUMN defense_text text, ADD COLUMN defended_at timestamptz,
    ADD CONSTRAINT disputes_defense_when CHECK ((defense_text IS NULL) = (defended_at IS NULL));
-- The merchant's reminder of its deadline, sent once.
ALTER TABLE disputes ADD COLUMN reminded_at timestamptz;
CREATE INDEX disputes_awaiting_defense_idx ON disputes (respond_by) WHERE status = 'open' AND defended_at IS NULL AND reminded_at IS NULL;

-- A defense's evidence: prints, a boletim de ocorrência (PDF, PNG, JPEG).
CREATE TABLE dispute_evidence (
    id           text COLLATE "C" PRIMARY KEY,
    dispute_id   text COLLATE "C" NOT NULL REFERENCES disputes (id),
    account_id   text NOT NULL,
    livemode     boolean NOT NULL,
    file_name    text NOT NULL,
    content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
    size_bytes   integer NOT NULL CHECK (size_bytes > 0),
    sha256       text NOT NULL,
    content      bytea NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX dispute_evidence_dispute_idx ON dispute_evidence (dispute_id, id);

-- The PSP calls of MED 2.0: a defense sent (POST /v2/gn/infracoes/{id}/defesa)
-- and an infração read back (GET /v2/gn/infracoes/{id}) when the PSP
-- says it changed.
ALTER TABLE psp_calls DROP CONSTRAINT psp_calls_kind_check;
ALTER TABLE psp_calls ADD CONSTRAINT psp_calls_kind_check CHECK (kind IN ('cob.create', 'cob.remove', 'pix.confirm',
    'devolucao.create', 'devolucao.check', 'payout.create', 'payout.check', 'transfer.return', 'lotecobv.create',
    'lotecobv.check', 'rec.create', 'rec.check', 'rec.cancel', 'cobr.create', 'cobr.check', 'cobr.retry',
    'infracao.defesa', 'infracao.check'));
