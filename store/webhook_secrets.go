package store

import (
	"crypto/rand"
	"encoding/base64"

	"payments/store/internal/secretbox"
)

// GenerateWebhookSecret returns whsec_ followed by 32 random bytes in
// standard base64, the form the Standard Webhooks libraries take as is.
func GenerateWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// secretHint shows enough of a secret to tell two apart, never enough to use it.
func secretHint(secret string) string {
	prefix := ""
	for _, p := range []string{"whsec_", "whpk_"} {
		if len(secret) > len(p) && secret[:len(p)] == p {
			prefix = p
		}
	}
	return prefix + "…" + secret[len(secret)-4:]
}

// hint is what the webhook shows of s: the HMAC secret's last characters,
// or, for an ed25519 key (never shown, not even in part), its public key's.
func (s SigningSecret) hint() string {
	if s.Algorithm == SignatureEd25519 {
		return secretHint(s.PublicKey)
	}
	return secretHint(s.Secret)
}

// orGenerated is s with its defaults: the HMAC algorithm, and a generated
// secret for an HMAC one left empty. (An ed25519 key pair is made by the
// caller, with dispatcher/signature.GenerateSigningKey.)
func (s SigningSecret) orGenerated() SigningSecret {
	if s.Algorithm == "" {
		s.Algorithm = SignatureHMAC
	}
	if s.Algorithm == SignatureHMAC && s.Secret == "" {
		s.Secret = GenerateWebhookSecret()
	}
	return s
}

func (s SigningSecret) publicKey() *string {
	if s.Algorithm != SignatureEd25519 {
		return nil
	}
	return &s.PublicKey
}

// ErrNoSecretKey means SECRET_KEY was not configured, so secrets can be
// neither sealed nor opened (secretbox seals them).
var ErrNoSecretKey = secretbox.ErrNoKey
