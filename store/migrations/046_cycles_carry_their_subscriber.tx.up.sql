-- A subscription's cycles carry its payer as their customer (name and CPF
-- or CNPJ; a subscription takes no e-mail, so theirs is null), as every
-- other charge naming a payer does: the cycles made before had none, and
-- the subscribers were missing from Clientes.
UPDATE payments p
SET customer = jsonb_build_object('name', s.payer ->> 'name', 'email', NULL, 'document', s.payer ->> 'document', 'phone', NULL)
FROM subscriptions s
WHERE p.subscription_id IS NOT NULL AND p.subscription_id = s.id AND p.customer IS NULL;

-- Clientes: the cycles just named count for their payers, as the fold
-- (store/rollups.go) would have counted them; an e-mail the payer has
-- from other charges is kept.
INSERT INTO customers AS c (account_id, livemode, document, name, email, payments, paid, paid_cents, first_charge_at, last_charge_at)
SELECT account_id, livemode, customer ->> 'document', (array_agg(customer ->> 'name' ORDER BY id DESC))[1], '',
    count(*), count(*) FILTER (WHERE paid_at IS NOT NULL),
    coalesce(sum(CASE WHEN amount_paid_cents > 0 THEN amount_paid_cents ELSE amount_cents END) FILTER (WHERE paid_at IS NOT NULL), 0),
    min(created_at), max(created_at)
FROM payments
WHERE subscription_id IS NOT NULL AND coalesce(customer ->> 'document', '') <> ''
GROUP BY account_id, livemode, customer ->> 'document'
ON CONFLICT (account_id, livemode, document) DO UPDATE SET
    name = CASE WHEN excluded.last_charge_at >= c.last_charge_at THEN excluded.name ELSE c.name END,
    payments = c.payments + excluded.payments, paid = c.paid + excluded.paid,
    paid_cents = c.paid_cents + excluded.paid_cents,
    first_charge_at = least(c.first_charge_at, excluded.first_charge_at),
    last_charge_at = greatest(c.last_charge_at, excluded.last_charge_at);

-- The overview's "Expiradas": a cycle whose attempts all failed expired
-- (payment.failed), and was never counted. The deltas go through the fold.
INSERT INTO rollup_deltas (account_id, livemode, hour, created, paid, gross_cents, fee_cents, expired, canceled,
    refunds, refunded_cents, disputes, disputed_cents)
SELECT account_id, livemode, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 1, 0, 0, 0, 0, 0
FROM events WHERE type = 'payment.failed';
