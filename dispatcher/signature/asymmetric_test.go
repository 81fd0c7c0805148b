package signature_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"math"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/signature"
)

func TestEd25519HeadersVerifyWithTheStandardLibraryAndNode(t *testing.T) {
	t.Parallel()
	oldKey, oldPublic := signature.GenerateSigningKey()
	newKey, newPublic := signature.GenerateSigningKey()
	require.True(t, strings.HasPrefix(newKey, "whsk_"))
	require.True(t, strings.HasPrefix(newPublic, "whpk_"))
	derived, err := signature.PublicKeyOf(newKey)
	require.NoError(t, err)
	require.Equal(t, newPublic, derived)

	body := []byte(`{"id":"evt_1","type":"payment.paid","data":{"object":{"amount_cents":12990}}}`)
	now := time.Now()
	h := signature.Headers(signature.Request{EventID: "evt_1", EventType: "payment.paid", AttemptID: "att_1", WebhookID: "wh_1",
		APIVersion: "v2", Body: body, At: now, Secrets: []string{newKey, oldKey}})
	_, hasHMAC := h[signature.Header]
	require.False(t, hasHMAC, "an ed25519 webhook has no shared secret to sign X-Service-Signature with")
	entries := strings.Split(h[signature.HeaderStandardSignature], " ")
	require.Len(t, entries, 2, "during a rotation both keys sign")

	// Verified with crypto/ed25519 alone, as the README shows.
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(newPublic, "whpk_"))
	require.NoError(t, err)
	sig, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(entries[0], "v1a,"))
	require.NoError(t, err)
	signed := append([]byte(h["webhook-id"]+"."+h["webhook-timestamp"]+"."), body...)
	require.True(t, ed25519.Verify(raw, signed, sig))

	verify := func(public string, payload []byte) error {
		return signature.VerifyStandardAsymmetric(payload, h["webhook-id"], h["webhook-timestamp"], h["webhook-signature"],
			public, signature.DefaultTolerance, now)
	}
	require.NoError(t, verify(newPublic, body))
	require.NoError(t, verify(oldPublic, body))
	_, otherPublic := signature.GenerateSigningKey()
	require.ErrorIs(t, verify(otherPublic, body), signature.ErrSignatureInvalid)
	require.ErrorIs(t, verify(newPublic, append(body, ' ')), signature.ErrSignatureInvalid)

	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed: the README's verifier is run with it")
	}
	run := func(public, sigs string, payload []byte) string {
		cmd := exec.Command(node, "testdata/verify_ed25519.js", public, h["webhook-id"], h["webhook-timestamp"], sigs)
		cmd.Stdin = strings.NewReader(string(payload))
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	require.Equal(t, "valid", run(newPublic, h["webhook-signature"], body))
	require.Equal(t, "valid", run(oldPublic, h["webhook-signature"], body))
	require.Equal(t, "invalid", run(otherPublic, h["webhook-signature"], body))
	require.Equal(t, "invalid", run(newPublic, h["webhook-signature"], append(body, ' ')))
	// After the overlap the old key no longer signs: its holder's check fails.
	after := signature.Headers(signature.Request{EventID: "evt_1", Body: body, At: now, Secrets: []string{newKey}})
	require.Equal(t, "invalid", run(oldPublic, after["webhook-signature"], body))
}

// verifyEd25519 is the README's Go snippet, word for word.
func verifyEd25519(body []byte, h http.Header, publicKey string) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(publicKey, "whpk_"))
	ts, tsErr := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || len(key) != ed25519.PublicKeySize || tsErr != nil || math.Abs(float64(time.Now().Unix()-ts)) > 300 {
		return false
	}
	signed := append([]byte(h.Get("webhook-id")+"."+h.Get("webhook-timestamp")+"."), body...)
	for _, entry := range strings.Fields(h.Get("webhook-signature")) {
		sig, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(entry, "v1a,"))
		if strings.HasPrefix(entry, "v1a,") && err == nil && ed25519.Verify(key, signed, sig) {
			return true
		}
	}
	return false
}

func TestTheREADMEsGoEd25519Verifier(t *testing.T) {
	t.Parallel()
	key, public := signature.GenerateSigningKey()
	_, other := signature.GenerateSigningKey()
	body := []byte(`{"id":"evt_3","type":"payment.paid"}`)
	sent := signature.Headers(signature.Request{EventID: "evt_3", Body: body, At: time.Now(), Secrets: []string{key}})
	h := http.Header{}
	for k, v := range sent {
		h.Set(k, v)
	}
	require.True(t, verifyEd25519(body, h, public))
	require.False(t, verifyEd25519(body, h, other))
	require.False(t, verifyEd25519(append(body, ' '), h, public))
	stale := signature.Headers(signature.Request{EventID: "evt_3", Body: body, At: time.Now().Add(-10 * time.Minute), Secrets: []string{key}})
	h.Set("webhook-timestamp", stale["webhook-timestamp"])
	h.Set("webhook-signature", stale["webhook-signature"])
	require.False(t, verifyEd25519(body, h, public))
}

func TestMixedSecretsDuringAnAlgorithmChange(t *testing.T) {
	t.Parallel()
	key, public := signature.GenerateSigningKey()
	body := []byte(`{"id":"evt_2"}`)
	now := time.Unix(1_700_000_000, 0)
	h := signature.Headers(signature.Request{EventID: "evt_2", Body: body, At: now, Secrets: []string{key, "whsec_old_secret_123"}})
	require.NoError(t, signature.VerifyAt(body, h[signature.Header], "whsec_old_secret_123", signature.DefaultTolerance, now))
	require.Equal(t, "t=1700000000,v1="+signature.Compute(body, "whsec_old_secret_123", now), h[signature.Header])
	require.Regexp(t, `^v1a,[A-Za-z0-9+/]{86}== v1,[A-Za-z0-9+/]{43}=$`, h["webhook-signature"])
	require.NoError(t, signature.VerifyStandardAsymmetric(body, "evt_2", "1700000000", h["webhook-signature"], public, time.Minute, now))
}
