package dispatcher_test

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/signature"
	"payments/web/webtest"
)

// An ed25519 webhook's real deliveries verify with Node's crypto.verify
// (the README's snippet) and its public key; a tampered body, another key,
// and the key rotated away (after the 24-hour overlap) fail.
func TestEd25519DeliveriesVerifyWithNodeCrypto(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node runs the README's verifier")
	clk := newClock()
	s := webtest.New(t, webtest.WithClock(clk.Now))
	recv := webtest.NewReceiver(t, nil)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{
		"url": recv.URL, "events": []string{"payment.created"}, "signature_algorithm": "ed25519"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	created := r.JSON(t)
	require.NotContains(t, created, "secret", "the signing key never leaves the service")
	require.Equal(t, "ed25519", created["signature_algorithm"])
	oldKey := created["public_key"].(string)
	require.Regexp(t, `^whpk_[A-Za-z0-9+/]{43}=$`, oldKey)
	require.Equal(t, "whpk_…"+oldKey[len(oldKey)-4:], created["secret_hint"], "nothing of the signing key is shown")
	id := created["id"].(string)

	nodeVerify := func(public string, h http.Header, body []byte) string {
		cmd := exec.Command(node, filepath.Join("signature", "testdata", "verify_ed25519.js"), public,
			h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature"))
		cmd.Stdin = strings.NewReader(string(body))
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	deliver := func(n int) webtest.Received {
		s.CreatePayment(map[string]any{"amount_cents": 100})
		require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
		got := recv.WaitFor(n, 5*time.Second)
		require.Len(t, got, n)
		return got[n-1]
	}

	first := deliver(1)
	require.Empty(t, first.Header.Get("X-Service-Signature"), "no shared secret, no HMAC header")
	require.Regexp(t, `^v1a,[A-Za-z0-9+/]{86}==$`, first.Header.Get("webhook-signature"))
	require.Equal(t, "valid", nodeVerify(oldKey, first.Header, first.Body))
	tampered := append([]byte(nil), first.Body...)
	tampered[len(tampered)-2] ^= 1
	require.Equal(t, "invalid", nodeVerify(oldKey, first.Header, tampered))
	_, otherKey := signature.GenerateSigningKey()
	require.Equal(t, "invalid", nodeVerify(otherKey, first.Header, first.Body))

	// Rotation: a new key, the old one signing beside it for 24 hours.
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + id + "/rotate_secret", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	rotated := r.JSON(t)
	require.NotContains(t, rotated, "secret")
	newKey := rotated["public_key"].(string)
	require.NotEqual(t, oldKey, newKey)
	require.NotNil(t, rotated["previous_secret_expires_at"])
	during := deliver(2)
	require.Len(t, strings.Fields(during.Header.Get("webhook-signature")), 2)
	require.Equal(t, "valid", nodeVerify(newKey, during.Header, during.Body))
	require.Equal(t, "valid", nodeVerify(oldKey, during.Header, during.Body))

	// After the overlap the old key is gone from the signatures.
	clk.Advance(24*time.Hour + time.Minute)
	after := deliver(3)
	require.Len(t, strings.Fields(after.Header.Get("webhook-signature")), 1)
	check := func(public string) error {
		return signature.VerifyStandardAsymmetric(after.Body, after.Header.Get("webhook-id"), after.Header.Get("webhook-timestamp"),
			after.Header.Get("webhook-signature"), public, signature.DefaultTolerance, clk.Now())
	}
	require.NoError(t, check(newKey))
	require.ErrorIs(t, check(oldKey), signature.ErrSignatureInvalid)

	// A custom secret is an HMAC secret: refused with ed25519, and whsk_ is reserved.
	for _, body := range []map[string]any{
		{"url": recv.URL, "events": []string{"payment.paid"}, "signature_algorithm": "ed25519", "secret": "my-own-secret-of-32-characters!!"},
		{"url": recv.URL, "events": []string{"payment.paid"}, "secret": "whsk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
		{"url": recv.URL, "events": []string{"payment.paid"}, "signature_algorithm": "rsa"},
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		param := "secret"
		if body["signature_algorithm"] == "rsa" {
			param = "signature_algorithm"
		}
		require.Equal(t, param, r.JSON(t)["error"].(map[string]any)["param"], "%s", r.Body)
	}
}
