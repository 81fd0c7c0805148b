-- A webhook signs with an HMAC secret (whsec_..., the seed's scheme) or an
-- ed25519 signing key (whsk_..., Standard Webhooks' v1a). Either is sealed
-- in secret_sealed (the previous one, during a rotation, in
-- previous_secret_sealed); public_key is the whpk_ key receivers verify
-- ed25519 deliveries with, shown freely.
ALTER TABLE webhooks
    ADD COLUMN signature_algorithm text NOT NULL DEFAULT 'hmac-sha256'
        CHECK (signature_algorithm IN ('hmac-sha256', 'ed25519')),
    ADD COLUMN public_key text,
    ADD CONSTRAINT webhooks_public_key_check CHECK ((signature_algorithm = 'ed25519') = (public_key IS NOT NULL));
