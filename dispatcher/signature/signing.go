package signature

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// signing holds what the MACs of one request read besides its body, the
// prefixes "<id>.<t>." (Standard Webhooks) and its tail "<t>." (the seed's),
// and room for each MAC's sum, in one buffer: bytes handed to a hash.Hash
// escape, so a buffer per prefix or per sum is an allocation apiece, and
// every delivery signs twice (BENCHMARKS.md).
type signing struct {
	ts                         string
	seedPrefix, standardPrefix []byte
	sum                        []byte
}

func newSigning(msgID string, t time.Time) signing {
	buf := make([]byte, 0, len(msgID)+1+20+1+sha256.Size)
	buf = append(buf, msgID...)
	buf = append(buf, '.')
	at := len(buf)
	buf = strconv.AppendInt(buf, t.Unix(), 10)
	ts := string(buf[at:])
	buf = append(buf, '.')
	return signing{ts: ts, seedPrefix: buf[at:], standardPrefix: buf, sum: buf[len(buf):]}
}

// seed is the X-Service-Signature value: t=<t>, then ,v1=<hex> per secret.
func (s signing) seed(payload []byte, secrets []string) string {
	var b strings.Builder
	b.Grow(2 + len(s.ts) + len(secrets)*(4+2*sha256.Size))
	b.WriteString("t=")
	b.WriteString(s.ts)
	var digits [2 * sha256.Size]byte
	for _, secret := range secrets {
		if IsSigningKey(secret) {
			continue // an ed25519 key signs webhook-signature only
		}
		hex.Encode(digits[:], s.mac([]byte(secret), s.seedPrefix, payload))
		b.WriteString(",v1=")
		b.Write(digits[:])
	}
	return b.String()
}

// standard is the webhook-signature value: v1,<base64 HMAC> per HMAC
// secret and v1a,<base64 ed25519 signature> per signing key (whsk_),
// space-separated, in the secrets' order.
func (s signing) standard(payload []byte, secrets []string) string {
	var b strings.Builder
	width := base64.StdEncoding.EncodedLen(sha256.Size)
	b.Grow(len(secrets) * (4 + width))
	var digits [44]byte // base64 of a SHA-256 sum
	for i, secret := range secrets {
		if i > 0 {
			b.WriteByte(' ')
		}
		if key, err := signingKey(secret); err == nil {
			signed := make([]byte, 0, len(s.standardPrefix)+len(payload))
			sig := ed25519.Sign(key, append(append(signed, s.standardPrefix...), payload...))
			b.WriteString("v1a,")
			b.WriteString(base64.StdEncoding.EncodeToString(sig))
			continue
		}
		base64.StdEncoding.Encode(digits[:], s.mac(StandardKey(secret), s.standardPrefix, payload))
		b.WriteString("v1,")
		b.Write(digits[:width])
	}
	return b.String()
}

// mac is HMAC-SHA256 of prefix and payload keyed with key, in s's sum buffer
// (valid until the next mac).
func (s signing) mac(key, prefix, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(prefix)
	m.Write(payload)
	return m.Sum(s.sum[:0])
}
