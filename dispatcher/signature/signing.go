package signature

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"
	"sync"
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
	macs := keyedMACSets.Get().(*keyedMACs)
	defer keyedMACSets.Put(macs)
	for _, secret := range secrets {
		if IsSigningKey(secret) {
			continue // an ed25519 key signs webhook-signature only
		}
		hex.Encode(digits[:], s.mac(keyed(macs.seed, secret, seedKey), s.seedPrefix, payload))
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
	macs := keyedMACSets.Get().(*keyedMACs)
	defer keyedMACSets.Put(macs)
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
		base64.StdEncoding.Encode(digits[:], s.mac(keyed(macs.standard, secret, StandardKey), s.standardPrefix, payload))
		b.WriteString("v1,")
		b.Write(digits[:width])
	}
	return b.String()
}

// mac is the HMAC-SHA256 of prefix and payload by m (keyed: keyedMACs), in
// s's sum buffer (valid until the next mac).
func (s signing) mac(m hash.Hash, prefix, payload []byte) []byte {
	m.Reset()
	m.Write(prefix)
	m.Write(payload)
	return m.Sum(s.sum[:0])
}

// keyedMACs are HMAC-SHA256 states keyed and ready, by secret, one set per
// signature (the seed's key is the secret's bytes, the Standard Webhooks'
// its base64 decoded). hmac.New (two SHA-256 states, the key's pads and,
// for Standard Webhooks, the key decoded) was most of what signing a
// delivery allocated, and a worker signs its webhook's deliveries one after
// another with the same secrets: a state Reset starts again from its key's
// pads, hashed once (crypto/hmac keeps them). Sets are pooled, so each
// goroutine signing at a time has one to itself. The states are as secret
// as their keys; like the webhooks the dispatcher keeps, they stay in memory.
type keyedMACs struct {
	seed, standard map[string]hash.Hash
}

// maxKeyedMACs bounds a set's map: past it (secrets rotated, many webhooks
// signed by one goroutine), the map starts over.
const maxKeyedMACs = 64

var keyedMACSets = sync.Pool{New: func() any {
	return &keyedMACs{seed: map[string]hash.Hash{}, standard: map[string]hash.Hash{}}
}}

// keyed is m's state for secret, made with key(secret) the first time.
func keyed(m map[string]hash.Hash, secret string, key func(string) []byte) hash.Hash {
	if h, ok := m[secret]; ok {
		return h
	}
	if len(m) >= maxKeyedMACs {
		clear(m)
	}
	h := hmac.New(sha256.New, key(secret))
	m[secret] = h
	return h
}

// seedKey is the seed signature's HMAC key: the secret's exact bytes.
func seedKey(secret string) []byte { return []byte(secret) }
