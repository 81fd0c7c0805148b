package dispatcher_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Real deliveries, v1 and v2, through a secret rotation and with a custom
// secret, verify with the official Standard Webhooks libraries: Go's and
// the npm package standardwebhooks (run by node).
func TestStandardWebhooksLibrariesVerifyDeliveries(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is needed to run the standardwebhooks npm package")
	s := webtest.New(t)
	recv := webtest.NewReceiver(t, nil)
	v2, v2Secret := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}, "api_version": "v2"})
	v1, v1Secret := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}, "api_version": "v1"})
	const custom = "my-own-secret-of-32-characters!!"
	_, _ = s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}, "secret": custom})
	require.True(t, strings.HasPrefix(v2Secret, "whsec_"))

	s.CreatePayment(map[string]any{"amount_cents": 1000})
	require.Equal(t, 3, s.Dispatcher.RunOnce(context.Background(), 10))
	got := recv.WaitFor(3, 5*time.Second)

	secretOf := map[string]string{v2: v2Secret, v1: v1Secret}
	for _, r := range got {
		hook := r.Header.Get("X-Service-Webhook-Id")
		require.Equal(t, r.Header.Get("X-Service-Event-Id"), r.Header.Get("webhook-id"), "the message id is the event id")
		if secret, ok := secretOf[hook]; ok {
			requireVerifies(t, node, secret, "base64", r.Header, r.Body)
			requireRefuses(t, node, "whsec_"+strings.Repeat("A", 44), "base64", r.Header, r.Body)
		} else {
			// A custom secret signs with its own bytes: the libraries' raw key.
			requireVerifies(t, node, custom, "raw", r.Header, r.Body)
		}
		tampered := append([]byte(nil), r.Body...)
		tampered[len(tampered)-2] ^= 1
		requireRefuses(t, node, secretOf[v2], "base64", r.Header, tampered)
	}

	// Rotation: for 24 hours both secrets verify every delivery.
	rotated := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + v2 + "/rotate_secret", Key: s.TestKey})
	require.Equal(t, http.StatusOK, rotated.Status)
	newSecret := rotated.JSON(t)["secret"].(string)
	s.CreatePayment(map[string]any{"amount_cents": 2000})
	require.Equal(t, 3, s.Dispatcher.RunOnce(context.Background(), 10))
	got = recv.WaitFor(6, 5*time.Second)[3:]
	var seen int
	for _, r := range got {
		if r.Header.Get("X-Service-Webhook-Id") != v2 {
			continue
		}
		seen++
		require.Len(t, strings.Fields(r.Header.Get("webhook-signature")), 2, "two signatures during the rotation")
		requireVerifies(t, node, newSecret, "base64", r.Header, r.Body)
		requireVerifies(t, node, v2Secret, "base64", r.Header, r.Body)
	}
	require.Equal(t, 1, seen)
}

func requireVerifies(t *testing.T, node, secret, format string, h http.Header, body []byte) {
	t.Helper()
	require.NoError(t, goVerify(secret, format, h, body), "Go standardwebhooks")
	require.Equal(t, "valid", jsVerify(t, node, secret, format, h, body), "npm standardwebhooks")
}

func requireRefuses(t *testing.T, node, secret, format string, h http.Header, body []byte) {
	t.Helper()
	require.Error(t, goVerify(secret, format, h, body), "Go standardwebhooks")
	require.Equal(t, "invalid", jsVerify(t, node, secret, format, h, body), "npm standardwebhooks")
}

func goVerify(secret, format string, h http.Header, body []byte) error {
	var wh *standardwebhooks.Webhook
	var err error
	if format == "raw" {
		wh, err = standardwebhooks.NewWebhookRaw([]byte(secret))
	} else {
		wh, err = standardwebhooks.NewWebhook(secret)
	}
	if err != nil {
		return err
	}
	return wh.Verify(body, h)
}

func jsVerify(t *testing.T, node, secret, format string, h http.Header, body []byte) string {
	t.Helper()
	headers, err := json.Marshal(map[string]string{
		"webhook-id": h.Get("webhook-id"), "webhook-timestamp": h.Get("webhook-timestamp"), "webhook-signature": h.Get("webhook-signature"),
	})
	require.NoError(t, err)
	cmd := exec.Command(node, filepath.Join("signature", "testdata", "verify_standard.js"), secret, format, string(headers))
	cmd.Stdin = strings.NewReader(string(body))
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}
