-- Static Pix QR codes: a code with a fixed or open amount that is paid
-- many times (a shop counter's printed QR). Each payment into it is a
-- payment of its own that names it (payments.pix_qr_code). Its txid is in
-- the code (field 62-05), so a Pix received for it names it.
CREATE TABLE pix_qr_codes (
    id             text COLLATE "C" PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id),
    livemode       boolean NOT NULL,
    amount_cents   bigint CHECK (amount_cents > 0),
    description    text,
    txid           text COLLATE "C" NOT NULL UNIQUE,
    br_code        text NOT NULL,
    status         text NOT NULL CHECK (status IN ('active', 'disabled')),
    expires_at     timestamptz,
    payments       bigint NOT NULL DEFAULT 0,
    received_cents bigint NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);
CREATE INDEX pix_qr_codes_list_idx ON pix_qr_codes (account_id, livemode, id DESC);

ALTER TABLE payments ADD COLUMN pix_qr_code text COLLATE "C";
CREATE INDEX payments_pix_qr_code_idx ON payments (pix_qr_code, id DESC) WHERE pix_qr_code IS NOT NULL;
