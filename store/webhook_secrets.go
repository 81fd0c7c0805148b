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
	if len(secret) > 6 && secret[:6] == "whsec_" {
		prefix = "whsec_"
	}
	return prefix + "…" + secret[len(secret)-4:]
}

// ErrNoSecretKey means SECRET_KEY was not configured, so secrets can be
// neither sealed nor opened (secretbox seals them).
var ErrNoSecretKey = secretbox.ErrNoKey
