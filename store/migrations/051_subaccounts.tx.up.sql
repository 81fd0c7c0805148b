-- Subaccounts: a platform's accounts (a marketplace's sellers, a
-- franchise's shops). Each is an account of its own (balance and ledger,
-- payments, webhooks, events, reports) whose parent is the platform; the
-- platform acts for one with the Payments-Account header, and its keys may
-- be limited to chosen ones. A subaccount's e-mail need not be unique
-- across platforms (one seller on two marketplaces).
ALTER TABLE accounts ADD COLUMN parent_account_id text REFERENCES accounts (id);
ALTER TABLE accounts ADD COLUMN pix_key text;
ALTER TABLE accounts ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled'));
CREATE INDEX accounts_parent_idx ON accounts (parent_account_id, id DESC) WHERE parent_account_id IS NOT NULL;
DROP INDEX accounts_email_key;
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email)) WHERE parent_account_id IS NULL;

ALTER TABLE api_keys ADD COLUMN subaccounts text[];
