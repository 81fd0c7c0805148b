package signature_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/signature"
)

// TestNodeSnippetVerifies runs the README's Node verifier against a real
// signature, so the snippet published for receivers is known to work.
func TestNodeSnippetVerifies(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	body := `{"id":"evt_1","type":"payment.paid","data":{"object":{"amount_cents":12990}}}`
	header := signature.Sign([]byte(body), time.Now(), "whsec_old", "whsec_new")
	run := func(secret, hdr, payload string) string {
		cmd := exec.Command(node, "testdata/verify.js", secret, hdr)
		cmd.Stdin = strings.NewReader(payload)
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	require.Equal(t, "valid", run("whsec_new", header, body))
	require.Equal(t, "valid", run("whsec_old", header, body))
	require.Equal(t, "invalid", run("whsec_other", header, body))
	require.Equal(t, "invalid", run("whsec_new", header, body+" "))
	stale := signature.Sign([]byte(body), time.Now().Add(-10*time.Minute), "whsec_new")
	require.Equal(t, "invalid", run("whsec_new", stale, body))
}
