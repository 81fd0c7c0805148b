// Package signature signs and verifies webhook deliveries. It depends only on
// the standard library, so receivers can vendor it as it is.
//
// The header is `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`
// where each hex is HMAC-SHA256 keyed with the webhook secret's exact bytes
// (the whsec_ prefix included) over "<t>.<raw body>". During a secret
// rotation the header carries one v1 per secret; any one may match.
package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header is the name of the signature header.
const Header = "X-Service-Signature"

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock.
const DefaultTolerance = 300 * time.Second

// Errors returned by Verify.
var (
	ErrMissingHeader    = errors.New("signature: header missing")
	ErrInvalidHeader    = errors.New("signature: header malformed")
	ErrNoSignatures     = errors.New("signature: header has no v1 signature")
	ErrTooOld           = errors.New("signature: timestamp outside the tolerance")
	ErrSignatureInvalid = errors.New("signature: no signature matches the payload")
)

// Compute returns the hex HMAC-SHA256 of "<t>.<payload>" keyed with secret.
func Compute(payload []byte, secret string, t time.Time) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t.Unix(), 10)))
	mac.Write([]byte("."))
	mac.Write(payload)
	return hex.EncodeToString(mac.Sum(nil))
}

// Sign returns the header value for payload sent at t, with one v1 entry per secret.
func Sign(payload []byte, t time.Time, secrets ...string) string {
	return newSigning("", t).seed(payload, secrets)
}

// Verify checks header against payload and secret, with the timestamp within
// tolerance of now. Use the raw body bytes exactly as received.
func Verify(payload []byte, header, secret string, tolerance time.Duration) error {
	return VerifyAt(payload, header, secret, tolerance, time.Now())
}

// VerifyAt is Verify with an explicit clock.
func VerifyAt(payload []byte, header, secret string, tolerance time.Duration, now time.Time) error {
	if header == "" {
		return ErrMissingHeader
	}
	var ts int64
	var haveTS bool
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrInvalidHeader
		}
		switch key {
		case "t":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return ErrInvalidHeader
			}
			ts, haveTS = n, true
		case "v1":
			sig, err := hex.DecodeString(value)
			if err != nil {
				continue // an unreadable entry cannot match; others still may
			}
			sigs = append(sigs, sig)
		}
	}
	if !haveTS {
		return ErrInvalidHeader
	}
	if len(sigs) == 0 {
		return ErrNoSignatures
	}
	t := time.Unix(ts, 0)
	if d := now.Sub(t); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	want, _ := hex.DecodeString(Compute(payload, secret, t))
	for _, sig := range sigs {
		if hmac.Equal(sig, want) {
			return nil
		}
	}
	return ErrSignatureInvalid
}
