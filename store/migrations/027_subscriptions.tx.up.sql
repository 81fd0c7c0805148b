-- Pix Automático: a subscription is a recurrence (API Pix's rec) its payer
-- authorizes once; each cycle is a payment of it, with the cycle's number,
-- due date, status and attempts in payments.cycle.
CREATE TABLE subscriptions (
    id               text PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    livemode         boolean NOT NULL,
    status           text NOT NULL CHECK (status IN ('created', 'awaiting_authorization', 'active', 'rejected', 'expired', 'canceled')),
    rec_id           text NOT NULL UNIQUE,
    journey          text NOT NULL CHECK (journey IN ('authorization_only', 'authorization_with_first_payment', 'payer_bank_request')),
    payer            jsonb NOT NULL,
    contract         text NOT NULL,
    description      text,
    interval         text NOT NULL CHECK (interval IN ('weekly', 'monthly', 'quarterly', 'semiannual', 'annual')),
    start_date       date NOT NULL,
    end_date         date,
    amount_cents     bigint CHECK (amount_cents > 0),
    max_amount_cents bigint CHECK (max_amount_cents > 0),
    retry_policy     text NOT NULL CHECK (retry_policy IN ('none', 'three_in_seven_days')),
    br_code          text,
    checkout_url     text,
    first_payment_id uuid,
    next_cycle       integer NOT NULL DEFAULT 1,
    next_cycle_on    date,
    canceled_by      text CHECK (canceled_by IN ('receiver', 'payer')),
    metadata         jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    activated_at     timestamptz,
    ended_at         timestamptz,
    CHECK ((amount_cents IS NULL) <> (max_amount_cents IS NULL))
);
CREATE INDEX subscriptions_list_idx ON subscriptions (account_id, livemode, id DESC);
-- Support finds a subscription by its payer's CPF or CNPJ and by its contract.
CREATE INDEX subscriptions_payer_document_idx ON subscriptions ((payer->>'document'));
CREATE INDEX subscriptions_contract_idx ON subscriptions (lower(contract));
-- The cycles to make: active subscriptions by their next cycle's due date.
CREATE INDEX subscriptions_next_cycle_idx ON subscriptions (next_cycle_on) WHERE status = 'active';

ALTER TABLE payments
    ADD COLUMN subscription_id text REFERENCES subscriptions (id),
    ADD COLUMN cycle           jsonb,
    ADD CONSTRAINT payments_cycle_of_subscription CHECK ((subscription_id IS NULL) = (cycle IS NULL));
CREATE INDEX payments_subscription_idx ON payments (subscription_id, id DESC) WHERE subscription_id IS NOT NULL;
