package signature

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Ed25519 keys in Standard Webhooks' text forms: the signing key is
// whsk_ + the base64 of its 32-byte seed, the public key whpk_ + the base64
// of its 32 bytes. A webhook whose secret is a signing key signs
// webhook-signature with "v1a,<base64 ed25519 signature>" entries over
// "<webhook-id>.<webhook-timestamp>.<body>", and sends no
// X-Service-Signature (that header is an HMAC, which needs a shared secret).
const (
	SigningKeyPrefix = "whsk_"
	PublicKeyPrefix  = "whpk_"
)

// ErrNotSigningKey means a text is not a whsk_ ed25519 signing key.
var ErrNotSigningKey = errors.New("signature: not an ed25519 signing key (whsk_ + base64 of 32 bytes)")

// GenerateSigningKey returns a new ed25519 signing key and its public key,
// both in their whsk_/whpk_ forms.
func GenerateSigningKey() (signingKey, publicKey string) {
	seed := make([]byte, ed25519.SeedSize)
	_, _ = rand.Read(seed)
	priv := ed25519.NewKeyFromSeed(seed)
	return SigningKeyPrefix + base64.StdEncoding.EncodeToString(seed),
		PublicKeyPrefix + base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
}

// IsSigningKey says whether secret is an ed25519 signing key rather than an
// HMAC secret.
func IsSigningKey(secret string) bool {
	_, ok := signingSeed(secret)
	return ok
}

// PublicKeyOf returns the whpk_ public key of a whsk_ signing key.
func PublicKeyOf(secret string) (string, error) {
	priv, err := signingKey(secret)
	if err != nil {
		return "", err
	}
	return PublicKeyPrefix + base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)), nil
}

func signingKey(secret string) (ed25519.PrivateKey, error) {
	seed, ok := signingSeed(secret)
	if !ok {
		return nil, ErrNotSigningKey
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// signingSeed decodes a whsk_ key's seed; an HMAC secret (the usual case)
// is told apart by its prefix alone.
func signingSeed(secret string) ([]byte, bool) {
	rest, ok := strings.CutPrefix(secret, SigningKeyPrefix)
	if !ok {
		return nil, false
	}
	seed, err := base64.StdEncoding.DecodeString(rest)
	return seed, err == nil && len(seed) == ed25519.SeedSize
}

// ParsePublicKey reads a whpk_ public key.
func ParsePublicKey(text string) (ed25519.PublicKey, error) {
	rest, ok := strings.CutPrefix(text, PublicKeyPrefix)
	if !ok {
		return nil, errors.New("signature: a public key begins with " + PublicKeyPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return nil, errors.New("signature: a public key is whpk_ + the base64 of 32 bytes")
	}
	return ed25519.PublicKey(key), nil
}

// VerifyStandardAsymmetric checks the Standard Webhooks headers of a
// delivery signed with ed25519 against publicKey (whpk_...), with the
// timestamp within tolerance of now: one v1a entry must match.
func VerifyStandardAsymmetric(payload []byte, msgID, timestamp, signatures, publicKey string, tolerance time.Duration, now time.Time) error {
	pub, err := ParsePublicKey(publicKey)
	if err != nil {
		return err
	}
	if msgID == "" || timestamp == "" || signatures == "" {
		return ErrMissingHeader
	}
	t, err := parseUnix(timestamp)
	if err != nil {
		return ErrInvalidHeader
	}
	if d := now.Sub(t); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	signed := make([]byte, 0, len(msgID)+len(timestamp)+2+len(payload))
	signed = append(append(append(append(append(signed, msgID...), '.'), timestamp...), '.'), payload...)
	found := false
	for _, entry := range strings.Fields(signatures) {
		b64, ok := strings.CutPrefix(entry, "v1a,")
		if !ok {
			continue
		}
		found = true
		sig, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && ed25519.Verify(pub, signed, sig) {
			return nil
		}
	}
	if !found {
		return ErrNoSignatures
	}
	return ErrSignatureInvalid
}

func parseUnix(text string) (time.Time, error) {
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(n, 0), nil
}
