-- Due-date charges (API Pix's cobv): the due date in its own column, for
-- lists filtered by it, and the terms as the API shows them (days after
-- due, fine, interest, discounts, abatement). What a payment received can
-- differ from its amount (fine, interest, discount): amount_paid_cents,
-- 0 until paid.
ALTER TABLE payments
    ADD COLUMN due_date          date,
    ADD COLUMN due_terms         jsonb,
    ADD COLUMN amount_paid_cents bigint NOT NULL DEFAULT 0 CHECK (amount_paid_cents >= 0),
    ADD CONSTRAINT payments_due_terms_with_date CHECK ((due_date IS NULL) = (due_terms IS NULL));
-- A payment's refunds give back at most what it received.
ALTER TABLE payments DROP CONSTRAINT payments_refunded_within_amount;
ALTER TABLE payments ADD CONSTRAINT payments_refunded_within_amount
    CHECK (amount_refunded_cents <= greatest(amount_cents, amount_paid_cents) AND fee_refunded_cents <= fee_cents);
CREATE INDEX payments_due_date_idx ON payments (account_id, livemode, due_date, id DESC) WHERE due_date IS NOT NULL;

-- Batches of charges (API Pix's lotecobv): the charges a POST made at
-- once, each item's outcome in its order. psp_id is the batch's number at
-- the PSP (PUT /lotecobv/{id} takes an integer).
CREATE TABLE payment_batches (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    livemode    boolean NOT NULL,
    psp_id      bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    description text,
    item_count  integer NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX payment_batches_list_idx ON payment_batches (account_id, livemode, created_at DESC);

CREATE TABLE payment_batch_items (
    batch_id    text NOT NULL REFERENCES payment_batches (id),
    position    integer NOT NULL,
    external_id text,
    payment_id  uuid REFERENCES payments (id),
    error       jsonb,
    PRIMARY KEY (batch_id, position),
    CHECK (payment_id IS NOT NULL OR error IS NOT NULL)
);
CREATE INDEX payment_batch_items_payment ON payment_batch_items (payment_id) WHERE payment_id IS NOT NULL;

ALTER TABLE psp_calls DROP CONSTRAINT psp_calls_kind_check;
ALTER TABLE psp_calls ADD CONSTRAINT psp_calls_kind_check CHECK (kind IN ('cob.create', 'cob.remove', 'pix.confirm',
    'devolucao.create', 'devolucao.check', 'payout.create', 'payout.check', 'transfer.return',
    'lotecobv.create', 'lotecobv.check'));
