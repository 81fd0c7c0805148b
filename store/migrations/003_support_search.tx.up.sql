-- Support staff search payments of every account by the customer's e-mail.
CREATE INDEX payments_customer_email_idx ON payments (lower(customer ->> 'email')) WHERE customer IS NOT NULL;
CREATE INDEX payments_external_id_search_idx ON payments (external_id) WHERE external_id IS NOT NULL;
