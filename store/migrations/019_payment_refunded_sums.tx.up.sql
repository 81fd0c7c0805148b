-- What a payment's succeeded refunds gave back, kept on the payment in the
-- transaction that settles each refund, so that every read of a payment
-- (the API object, event snapshots, lists) says how much of it is still the
-- merchant's without adding up its refunds: amount_refunded_cents is the
-- amount back with the payer, fee_refunded_cents the part of the fee those
-- refunds returned.
ALTER TABLE payments
    ADD COLUMN amount_refunded_cents bigint NOT NULL DEFAULT 0 CHECK (amount_refunded_cents >= 0),
    ADD COLUMN fee_refunded_cents    bigint NOT NULL DEFAULT 0 CHECK (fee_refunded_cents >= 0);

UPDATE payments p SET amount_refunded_cents = s.amount, fee_refunded_cents = s.fee
FROM (SELECT payment_id, sum(amount_cents) AS amount, sum(fee_cents) AS fee
      FROM refunds WHERE status = 'succeeded' GROUP BY payment_id) s
WHERE s.payment_id = p.id;

ALTER TABLE payments ADD CONSTRAINT payments_refunded_within_amount
    CHECK (amount_refunded_cents <= amount_cents AND fee_refunded_cents <= fee_cents);
