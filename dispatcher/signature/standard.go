package signature

import (
	"encoding/base64"
	"strings"
	"time"
)

// The Standard Webhooks headers (https://www.standardwebhooks.com), sent
// beside X-Service-Signature so that its libraries verify every delivery.
const (
	HeaderStandardID        = "webhook-id"
	HeaderStandardTimestamp = "webhook-timestamp"
	HeaderStandardSignature = "webhook-signature"
)

// StandardKey is the HMAC key of the Standard Webhooks signature for secret,
// the key its libraries derive from the same text: the base64 after whsec_.
// A secret that is not whsec_ plus standard base64 (a custom one, or one
// generated before secrets were standard base64) signs with its own bytes;
// the libraries take those as a raw key (Go: NewWebhookRaw; JS: { format:
// "raw" }).
func StandardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(secret)
}

// SignStandard returns the webhook-signature value for a message: one
// "v1,<base64 HMAC-SHA256 of id.t.payload>" per secret, space-separated
// (two during a secret rotation).
func SignStandard(msgID string, t time.Time, payload []byte, secrets ...string) string {
	return newSigning(msgID, t).standard(payload, secrets)
}

// Request is one delivery attempt as its headers describe it.
type Request struct {
	EventID    string
	EventType  string
	AttemptID  string
	WebhookID  string
	APIVersion string
	Body       []byte
	At         time.Time
	// Secrets sign the request: the current one, then the previous one
	// while a rotation lasts. Each is an HMAC secret or an ed25519 signing
	// key (whsk_, see SigningKeyPrefix).
	Secrets []string
}

// UserAgent is every delivery's User-Agent.
const UserAgent = "Service-Webhooks/2.0"

// Headers are the headers of one delivery attempt: the seed's set and the
// Standard Webhooks set. The Standard Webhooks message id is the event id,
// the same on every attempt, so receivers deduplicate on either header.
func Headers(r Request) map[string]string {
	s := newSigning(r.EventID, r.At)
	h := map[string]string{
		"Content-Type":          "application/json",
		"User-Agent":            UserAgent,
		"X-Service-Event":       r.EventType,
		"X-Service-Event-Id":    r.EventID,
		"X-Service-Delivery":    r.AttemptID,
		"X-Service-Webhook-Id":  r.WebhookID,
		Header:                  s.seed(r.Body, r.Secrets),
		"X-Service-Api-Version": r.APIVersion,
		HeaderStandardID:        r.EventID,
		HeaderStandardTimestamp: s.ts,
		HeaderStandardSignature: s.standard(r.Body, r.Secrets),
	}
	if !hasHMACSecret(r.Secrets) {
		delete(h, Header) // signed with ed25519 keys only: nothing to put in an HMAC header
	}
	return h
}

func hasHMACSecret(secrets []string) bool {
	for _, s := range secrets {
		if !IsSigningKey(s) {
			return true
		}
	}
	return false
}
