-- A dispute holds what is still the merchant's: the payment's amount less
-- what its refunds returned or are returning. A payment whose whole amount
-- is being refunded when the payer's bank opens a claim holds nothing, and
-- a refund that fails while the dispute is open adds its amount to the hold.
ALTER TABLE disputes DROP CONSTRAINT disputes_amount_cents_check;
ALTER TABLE disputes ADD CONSTRAINT disputes_amount_cents_check CHECK (amount_cents >= 0);
