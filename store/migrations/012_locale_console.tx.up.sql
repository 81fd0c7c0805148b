-- The dashboard speaks the user's language and shows times in the
-- account's time zone.
ALTER TABLE users ADD COLUMN locale text NOT NULL DEFAULT 'pt-BR' CHECK (locale IN ('pt-BR', 'en'));
ALTER TABLE accounts ADD COLUMN time_zone text NOT NULL DEFAULT 'America/Sao_Paulo';

-- "Send test" is recorded like any delivery, of a sample event: marked so
-- that nothing else (timelines, the events an account lists) counts it.
ALTER TABLE events ADD COLUMN sample boolean NOT NULL DEFAULT false;
ALTER TABLE webhook_deliveries ADD COLUMN test boolean NOT NULL DEFAULT false;

-- The support console finds a payment by what a payer reads out: the
-- start of a name, a CPF or CNPJ.
CREATE INDEX payments_customer_name_idx ON payments (lower(customer ->> 'name') text_pattern_ops) WHERE customer IS NOT NULL;
CREATE INDEX payments_customer_document_idx ON payments ((customer ->> 'document')) WHERE customer IS NOT NULL;
