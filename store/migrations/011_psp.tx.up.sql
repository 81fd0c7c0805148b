-- Live money through the PSP (API Pix).

-- A live charge is registered at the PSP before it can be paid: until then
-- it has no BR Code. local: made here (test mode, and live charges from
-- before this migration); registering, registered: at the PSP; failed: the
-- PSP refused it.
ALTER TABLE payments ADD COLUMN charge_state text NOT NULL DEFAULT 'local'
    CHECK (charge_state IN ('local', 'registering', 'registered', 'failed'));
-- The Idempotency-Key a live creation came with, and its request's hash:
-- a retry after the PSP was slow finds the charge it started.
ALTER TABLE payments ADD COLUMN creation_key text;
ALTER TABLE payments ADD COLUMN creation_hash bytea;
CREATE UNIQUE INDEX payments_creation_key ON payments (account_id, livemode, creation_key) WHERE creation_key IS NOT NULL;

-- Refunds become partial and real: several per payment up to its amount,
-- each pending until the PSP's devolução ends (test mode: its helpers).
ALTER TABLE refunds DROP CONSTRAINT refunds_payment_id_key;
ALTER TABLE refunds ADD COLUMN status text NOT NULL DEFAULT 'succeeded'
    CHECK (status IN ('pending', 'succeeded', 'failed'));
-- The part of the payment's fee the refund gives back (the fee of what it returns).
ALTER TABLE refunds ADD COLUMN fee_cents bigint NOT NULL DEFAULT 0;
ALTER TABLE refunds ADD COLUMN description text;
-- The Pix the devolução returns (live), and the devolução's own id at the PSP (rtrId).
ALTER TABLE refunds ADD COLUMN end_to_end_id text;
ALTER TABLE refunds ADD COLUMN return_id text;
ALTER TABLE refunds ADD COLUMN failure_reason text;
ALTER TABLE refunds ADD COLUMN updated_at timestamptz;
ALTER TABLE refunds ADD COLUMN completed_at timestamptz;
UPDATE refunds r SET updated_at = r.created_at, completed_at = r.created_at, fee_cents = p.fee_cents
FROM payments p WHERE p.id = r.payment_id;
ALTER TABLE refunds ALTER COLUMN updated_at SET NOT NULL;
CREATE INDEX refunds_payment_idx ON refunds (payment_id, id);
CREATE INDEX refunds_list_idx ON refunds (account_id, livemode, id DESC);

-- A failed refund's money comes back: its reversal entries.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN ('payment', 'fee', 'refund',
    'fee_refund', 'refund_reversal', 'fee_refund_reversal', 'dispute_hold', 'dispute_release', 'dispute_loss',
    'withdrawal', 'withdrawal_reversal'));

-- The outbound queue: every call to the PSP is a row written in the
-- transaction of the state change that needs it, and sent by a worker with
-- retries, under a lease, idempotent at the PSP by our ids (txid,
-- devolução id, idEnvio).
CREATE TABLE psp_calls (
    id               text COLLATE "C" PRIMARY KEY,
    -- The account the call is for; NULL for a transfer to confirm, whose
    -- account only the confirmation tells.
    account_id       text REFERENCES accounts (id),
    kind             text NOT NULL CHECK (kind IN ('cob.create', 'cob.remove', 'pix.confirm', 'devolucao.create',
                         'devolucao.check', 'payout.create', 'payout.check')),
    -- What the call is about: a payment, refund or withdrawal id, or the
    -- endToEndId of a transfer to confirm.
    object_id        text NOT NULL,
    request          jsonb,
    status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    lease_token      text,
    lease_expires_at timestamptz,
    last_error       text,
    response         jsonb,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    completed_at     timestamptz
);
CREATE INDEX psp_calls_due_idx ON psp_calls (next_attempt_at) WHERE status = 'pending';
CREATE INDEX psp_calls_object_idx ON psp_calls (object_id, created_at);
-- A transfer is confirmed by one call, however many callbacks name it.
CREATE UNIQUE INDEX psp_calls_confirm_key ON psp_calls (object_id) WHERE kind = 'pix.confirm';

-- Where the reconciler's walk of the PSP's received Pix (GET /pix) stands.
CREATE TABLE psp_cursors (
    name       text PRIMARY KEY,
    position   timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
