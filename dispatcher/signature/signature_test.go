package signature_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/signature"
)

func TestSignMatchesAnIndependentHMAC(t *testing.T) {
	t.Parallel()
	payload := []byte(`{"id":"evt_1"}`)
	secret := "whsec_abc"
	at := time.Unix(1_700_000_000, 0)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.%s", at.Unix(), payload)
	want := "t=1700000000,v1=" + hex.EncodeToString(mac.Sum(nil))
	require.Equal(t, want, signature.Sign(payload, at, secret))
}

func TestVerify(t *testing.T) {
	t.Parallel()
	payload := []byte(`{"id":"evt_1","type":"payment.paid"}`)
	now := time.Unix(1_700_000_000, 0)
	header := signature.Sign(payload, now, "whsec_new", "whsec_old")

	cases := []struct {
		name    string
		payload []byte
		header  string
		secret  string
		now     time.Time
		want    error
	}{
		{"current secret", payload, header, "whsec_new", now, nil},
		{"previous secret during rotation", payload, header, "whsec_old", now, nil},
		{"within tolerance", payload, header, "whsec_new", now.Add(299 * time.Second), nil},
		{"too old", payload, header, "whsec_new", now.Add(301 * time.Second), signature.ErrTooOld},
		{"from the future", payload, header, "whsec_new", now.Add(-301 * time.Second), signature.ErrTooOld},
		{"wrong secret", payload, header, "whsec_other", now, signature.ErrSignatureInvalid},
		{"tampered body", []byte(`{"id":"evt_2","type":"payment.paid"}`), header, "whsec_new", now, signature.ErrSignatureInvalid},
		{"missing header", payload, "", "whsec_new", now, signature.ErrMissingHeader},
		{"no timestamp", payload, "v1=00", "whsec_new", now, signature.ErrInvalidHeader},
		{"bad timestamp", payload, "t=abc,v1=00", "whsec_new", now, signature.ErrInvalidHeader},
		{"no signatures", payload, "t=1700000000", "whsec_new", now, signature.ErrNoSignatures},
		{"garbage", payload, "nonsense", "whsec_new", now, signature.ErrInvalidHeader},
		{"other scheme only", payload, "t=1700000000,v0=abcd", "whsec_new", now, signature.ErrNoSignatures},
	}
	for _, c := range cases {
		err := signature.VerifyAt(c.payload, c.header, c.secret, signature.DefaultTolerance, c.now)
		if c.want == nil {
			require.NoError(t, err, c.name)
		} else {
			require.ErrorIs(t, err, c.want, c.name)
		}
	}
}

func ExampleVerify() {
	// In a receiver: read the raw body, then check it before trusting it.
	body := []byte(`{"id":"evt_1","type":"payment.paid"}`)
	header := signature.Sign(body, time.Now(), "whsec_example") // what the service sends
	if err := signature.Verify(body, header, "whsec_example", signature.DefaultTolerance); err != nil {
		fmt.Println("reject:", err)
		return
	}
	fmt.Println("verified")
	// Output: verified
}

// Signing keeps each secret's keyed HMAC state for the next delivery: a
// state must sign as a fresh one would, for its own secret only, however
// the secrets and payloads follow one another (more secrets than a set
// keeps, so it starts over too), and from goroutines signing at once.
func TestReusedKeyedStatesSignAsFreshOnes(t *testing.T) {
	t.Parallel()
	fresh := func(key []byte, parts ...string) []byte {
		m := hmac.New(sha256.New, key)
		for _, p := range parts {
			m.Write([]byte(p))
		}
		return m.Sum(nil)
	}
	at := time.Unix(1_700_000_000, 0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				secret := fmt.Sprintf("whsec_%s", base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("key-%d", (i*7+g)%100))))
				other := fmt.Sprintf("plain-secret-%d", i%3)
				payload := fmt.Sprintf(`{"id":"evt_%d","n":%d}`, i, g)
				h := signature.Headers(signature.Request{EventID: "evt_x", At: at, Body: []byte(payload),
					Secrets: []string{secret, other}})
				ts := "1700000000"
				require.Equal(t, "t="+ts+",v1="+hex.EncodeToString(fresh([]byte(secret), ts, ".", payload))+
					",v1="+hex.EncodeToString(fresh([]byte(other), ts, ".", payload)), h[signature.Header])
				require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(fresh(signature.StandardKey(secret), "evt_x.", ts, ".", payload))+
					" v1,"+base64.StdEncoding.EncodeToString(fresh([]byte(other), "evt_x.", ts, ".", payload)),
					h[signature.HeaderStandardSignature])
			}
		})
	}
	wg.Wait()
}
