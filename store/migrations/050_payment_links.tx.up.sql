-- Payment links: a hosted page a seller shares (no code), which makes a
-- charge per payer. The amount is fixed, or the payer chooses it between a
-- minimum and a maximum; the link may collect the payer's name and CPF or
-- CNPJ (and e-mail), take at most max_uses payments and end at expires_at.
-- Each charge it makes names it (payments.payment_link).
CREATE TABLE payment_links (
    id               text COLLATE "C" PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    livemode         boolean NOT NULL,
    description      text NOT NULL,
    amount_cents     bigint CHECK (amount_cents > 0),
    min_amount_cents bigint CHECK (min_amount_cents > 0),
    max_amount_cents bigint CHECK (max_amount_cents >= min_amount_cents),
    collect          text[] NOT NULL DEFAULT '{}',
    max_uses         bigint CHECK (max_uses > 0),
    status           text NOT NULL CHECK (status IN ('active', 'disabled')),
    expires_at       timestamptz,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    -- A fixed amount, or a range the payer chooses in: one or the other.
    CHECK ((amount_cents IS NULL) = (min_amount_cents IS NOT NULL AND max_amount_cents IS NOT NULL)),
    CHECK (amount_cents IS NULL OR (min_amount_cents IS NULL AND max_amount_cents IS NULL))
);
CREATE INDEX payment_links_list_idx ON payment_links (account_id, livemode, id DESC);

ALTER TABLE payments ADD COLUMN payment_link text COLLATE "C";
CREATE INDEX payments_payment_link_idx ON payments (payment_link, id DESC) WHERE payment_link IS NOT NULL;
