package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
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
// neither sealed nor opened.
var ErrNoSecretKey = errors.New("store: SECRET_KEY is not configured")

// secretBox seals secrets at rest with AES-256-GCM: nonce || ciphertext.
type secretBox struct {
	aead cipher.AEAD
}

func newSecretBox(key []byte) (*secretBox, error) {
	if key == nil {
		return nil, nil
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("store: SECRET_KEY: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("store: SECRET_KEY: %w", err)
	}
	return &secretBox{aead: aead}, nil
}

// seal encrypts plaintext; ad binds the ciphertext to its row, so a sealed
// secret copied into another webhook's row does not open.
func (b *secretBox) seal(plaintext, ad string) ([]byte, error) {
	if b == nil {
		return nil, ErrNoSecretKey
	}
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(ad)), nil
}

func (b *secretBox) open(sealed []byte, ad string) (string, error) {
	if b == nil {
		return "", ErrNoSecretKey
	}
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("store: sealed secret is truncated")
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], []byte(ad))
	if err != nil {
		return "", errors.New("store: sealed secret does not open with this SECRET_KEY")
	}
	return string(plain), nil
}
