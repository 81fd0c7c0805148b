-- Every PIX settlement notification from the PSP, kept whatever its outcome.
-- end_to_end_id (the PIX transfer's own id) makes redeliveries idempotent.
CREATE TABLE psp_notifications (
    end_to_end_id text PRIMARY KEY,
    txid          text NOT NULL,
    amount_cents  bigint NOT NULL,
    settled_at    timestamptz,
    payment_id    uuid REFERENCES payments (id),
    outcome       text NOT NULL CHECK (outcome IN ('paid', 'amount_mismatch', 'unknown_txid', 'already_paid')),
    raw           jsonb NOT NULL,
    received_at   timestamptz NOT NULL
);
CREATE INDEX psp_notifications_received_idx ON psp_notifications (received_at DESC);
CREATE INDEX psp_notifications_payment_idx ON psp_notifications (payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX psp_notifications_problem_idx ON psp_notifications (received_at DESC) WHERE outcome <> 'paid';
