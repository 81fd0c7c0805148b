// Package secretbox seals secrets at rest (webhook signing secrets) with
// AES-256-GCM under the service's SECRET_KEY: nonce || ciphertext, bound to
// the row that holds it.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// ErrNoKey means SECRET_KEY was not configured, so secrets can be neither
// sealed nor opened.
var ErrNoKey = errors.New("store: SECRET_KEY is not configured")

// Box seals and opens; a nil Box (no key) refuses both with ErrNoKey.
type Box struct {
	aead cipher.AEAD
}

// New returns the box of key (32 bytes), or nil when key is nil.
func New(key []byte) (*Box, error) {
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
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext; ad binds the ciphertext to its row, so a sealed
// secret copied into another webhook's row does not open.
func (b *Box) Seal(plaintext, ad string) ([]byte, error) {
	if b == nil {
		return nil, ErrNoKey
	}
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("store: nonce: %w", err)
	}
	return b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(ad)), nil
}

// Open decrypts what Seal made for the same ad.
func (b *Box) Open(sealed []byte, ad string) (string, error) {
	if b == nil {
		return "", ErrNoKey
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
