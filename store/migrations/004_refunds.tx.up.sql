-- Full refunds of paid payments.
ALTER TABLE payments ADD COLUMN refunded_at timestamptz;
