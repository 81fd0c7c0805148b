package webtest

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"testing"
)

// The egress proxy `make test` runs (scripts/services.sh: Stripe's
// smokescreen) and its log, where the tests count what went through it.
const (
	EnvWebhookProxyURL = "TEST_WEBHOOK_PROXY_URL"
	EnvSmokescreenLog  = "TEST_SMOKESCREEN_LOG"
)

// WebhookProxy is the egress proxy's URL; the test fails without one.
func WebhookProxy(t testing.TB) *url.URL {
	t.Helper()
	raw := os.Getenv(EnvWebhookProxyURL)
	if raw == "" {
		t.Fatalf("%s is not set: run the suite with `make test` (scripts/services.sh starts smokescreen)", EnvWebhookProxyURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// ProxyDecision is one of smokescreen's decisions on a request.
type ProxyDecision struct {
	Host      string `json:"requested_host"`
	ProxyType string `json:"proxy_type"`
	Allow     bool   `json:"allow"`
	Reason    string `json:"decision_reason"`
}

// ProxyDecisions are smokescreen's decisions so far about host (host:port).
func ProxyDecisions(t testing.TB, host string) []ProxyDecision {
	t.Helper()
	path := os.Getenv(EnvSmokescreenLog)
	if path == "" {
		t.Fatalf("%s is not set: run the suite with `make test`", EnvSmokescreenLog)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ProxyDecision
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	for lines.Scan() {
		var line struct {
			Msg string `json:"msg"`
			ProxyDecision
		}
		if json.Unmarshal(lines.Bytes(), &line) == nil && line.Msg == "CANONICAL-PROXY-DECISION" && line.Host == host {
			out = append(out, line.ProxyDecision)
		}
	}
	return out
}
