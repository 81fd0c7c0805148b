package signature_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
