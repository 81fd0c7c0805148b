-- Mutual TLS to a receiver: the client certificate a webhook presents
-- (PEM, leaf first) with its private key sealed like secrets (never
-- returned), and the CA certificates (PEM) the receiver's certificate must
-- chain to when pinned. What people see of them is kept beside: the leaf's
-- subject, issuer, SHA-256 fingerprint and end, the pinned CAs' subjects
-- and the first one's fingerprint. mtls_expiry_noticed_at is when the
-- owners were told the certificate ends within 30 days (cleared with a new
-- certificate).
ALTER TABLE webhooks
    ADD COLUMN mtls_certificate text,
    ADD COLUMN mtls_key_sealed bytea,
    ADD COLUMN mtls_subject text,
    ADD COLUMN mtls_issuer text,
    ADD COLUMN mtls_fingerprint text,
    ADD COLUMN mtls_expires_at timestamptz,
    ADD COLUMN mtls_expiry_noticed_at timestamptz,
    ADD COLUMN mtls_server_ca text,
    ADD COLUMN mtls_server_ca_subjects text,
    ADD COLUMN mtls_server_ca_fingerprint text,
    ADD CONSTRAINT webhooks_mtls_pair_check CHECK ((mtls_certificate IS NULL) = (mtls_key_sealed IS NULL)
        AND (mtls_certificate IS NULL) = (mtls_expires_at IS NULL));
CREATE INDEX webhooks_mtls_expiry_idx ON webhooks (mtls_expires_at) WHERE mtls_expires_at IS NOT NULL AND mtls_expiry_noticed_at IS NULL;
