package signature_test

import (
	"strings"
	"testing"
	"time"

	"payments/dispatcher/signature"
)

// What signing one delivery costs, by algorithm (BENCHMARKS.md, issue 35):
// go test -run '^$' -bench Headers ./dispatcher/signature/
func BenchmarkHeaders(b *testing.B) {
	key, _ := signature.GenerateSigningKey()
	body := []byte(`{"id":"evt_0354jmasKgDb8pkGK1scwi","type":"payment.paid","data":{"object":{"id":"x","amount_cents":12990}}}` + strings.Repeat(" ", 700))
	for _, c := range []struct {
		name    string
		secrets []string
	}{
		{"hmac-sha256", []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}},
		{"ed25519", []string{key}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := signature.Request{EventID: "evt_1", EventType: "payment.paid", AttemptID: "dlv_1", WebhookID: "wh_1",
				APIVersion: "v2", Body: body, At: time.Now(), Secrets: c.secrets}
			b.ReportAllocs()
			for b.Loop() {
				signature.Headers(r)
			}
		})
	}
}
