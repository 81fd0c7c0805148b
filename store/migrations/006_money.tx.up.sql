-- Money movement. ledger_entries is the truth of every balance: one signed row
-- per movement of money, written in the transaction of the state change that
-- moved it. balances is the running sum of those rows per account and mode,
-- updated in the same transaction, so debits that must be covered serialize on
-- one row and can check the sum without reading the ledger.
CREATE TABLE balances (
    account_id      text NOT NULL REFERENCES accounts (id),
    livemode        boolean NOT NULL,
    available_cents bigint NOT NULL,
    pending_cents   bigint NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (account_id, livemode)
);

CREATE TABLE ledger_entries (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id   text NOT NULL REFERENCES accounts (id),
    livemode     boolean NOT NULL,
    -- available: money the account can withdraw; pending: money it has
    -- received that is held (today: by open disputes).
    balance      text NOT NULL CHECK (balance IN ('available', 'pending')),
    type         text NOT NULL CHECK (type IN ('payment', 'fee', 'refund', 'fee_refund', 'dispute_hold',
                     'dispute_release', 'dispute_loss', 'withdrawal', 'withdrawal_reversal')),
    amount_cents bigint NOT NULL CHECK (amount_cents <> 0),
    -- The object whose change moved the money: a payment id, re_, dsp_ or wd_.
    source_id    text NOT NULL,
    created_at   timestamptz NOT NULL
);
-- A movement happens once per object: a second posting is a bug, refused here.
CREATE UNIQUE INDEX ledger_entries_source_key ON ledger_entries (source_id, type, balance);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, livemode, id DESC);

-- Refunds of paid payments, asked for by the merchant or forced by a lost dispute.
CREATE TABLE refunds (
    id           text COLLATE "C" PRIMARY KEY,
    account_id   text NOT NULL REFERENCES accounts (id),
    livemode     boolean NOT NULL,
    payment_id   uuid NOT NULL UNIQUE REFERENCES payments (id),
    amount_cents bigint NOT NULL CHECK (amount_cents > 0),
    reason       text NOT NULL CHECK (reason IN ('requested', 'dispute_lost')),
    dispute_id   text,
    created_at   timestamptz NOT NULL
);

-- PIX MED disputes: the payer's bank claims the money back; while open the
-- amount is held, won releases it, lost returns it to the payer.
CREATE TABLE disputes (
    id            text COLLATE "C" PRIMARY KEY,
    account_id    text NOT NULL REFERENCES accounts (id),
    livemode      boolean NOT NULL,
    payment_id    uuid NOT NULL UNIQUE REFERENCES payments (id),
    amount_cents  bigint NOT NULL CHECK (amount_cents > 0),
    reason        text NOT NULL CHECK (reason IN ('fraud', 'operational_failure')),
    status        text NOT NULL CHECK (status IN ('open', 'won', 'lost')),
    -- The PSP's id for the dispute; redelivered notifications match on it.
    psp_reference text UNIQUE,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    closed_at     timestamptz,
    CHECK ((status = 'open') = (closed_at IS NULL))
);
CREATE INDEX disputes_list_idx ON disputes (account_id, livemode, id DESC);

-- Payouts of the available balance to a PIX key.
CREATE TABLE withdrawals (
    id             text COLLATE "C" PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id),
    livemode       boolean NOT NULL,
    amount_cents   bigint NOT NULL CHECK (amount_cents > 0),
    pix_key        text NOT NULL,
    pix_key_type   text NOT NULL CHECK (pix_key_type IN ('cpf', 'cnpj', 'email', 'phone', 'evp')),
    description    text,
    metadata       jsonb NOT NULL,
    status         text NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
    end_to_end_id  text,
    failure_reason text,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    completed_at   timestamptz,
    failed_at      timestamptz
);
CREATE INDEX withdrawals_list_idx ON withdrawals (account_id, livemode, id DESC);
CREATE INDEX withdrawals_pending_idx ON withdrawals (created_at) WHERE status = 'pending';

-- Payments paid or refunded before the ledger existed get their entries now,
-- so every balance starts equal to the sum of its ledger.
INSERT INTO refunds (id, account_id, livemode, payment_id, amount_cents, reason, created_at)
SELECT 're_' || replace(gen_random_uuid()::text, '-', ''), account_id, livemode, id, amount_cents, 'requested', refunded_at
FROM payments WHERE status = 'refunded';

INSERT INTO ledger_entries (account_id, livemode, balance, type, amount_cents, source_id, created_at)
SELECT account_id, livemode, 'available', 'payment', amount_cents, id::text, paid_at
FROM payments WHERE status IN ('paid', 'refunded');
INSERT INTO ledger_entries (account_id, livemode, balance, type, amount_cents, source_id, created_at)
SELECT account_id, livemode, 'available', 'fee', -fee_cents, id::text, paid_at
FROM payments WHERE status IN ('paid', 'refunded') AND fee_cents > 0;
INSERT INTO ledger_entries (account_id, livemode, balance, type, amount_cents, source_id, created_at)
SELECT r.account_id, r.livemode, 'available', 'refund', -r.amount_cents, r.id, r.created_at FROM refunds r;
INSERT INTO ledger_entries (account_id, livemode, balance, type, amount_cents, source_id, created_at)
SELECT r.account_id, r.livemode, 'available', 'fee_refund', p.fee_cents, r.id, r.created_at
FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE p.fee_cents > 0;

INSERT INTO balances (account_id, livemode, available_cents, pending_cents, updated_at)
SELECT account_id, livemode,
       coalesce(sum(amount_cents) FILTER (WHERE balance = 'available'), 0),
       coalesce(sum(amount_cents) FILTER (WHERE balance = 'pending'), 0),
       now()
FROM ledger_entries GROUP BY account_id, livemode;
