// Package ids mints every identifier the service hands out: prefix_ and 22
// base62 characters encoding a UUIDv7, so ids are unique and sort by
// creation time (the alphabet is in ASCII order); payments take the UUIDv7
// itself (DESIGN: Identifiers).
package ids

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
	"time"

	"github.com/google/uuid"
)

const base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Prefixes of the ids the service hands out.
const (
	PrefixAccount      = "acct"
	PrefixAPIKey       = "key"
	PrefixEvent        = "evt"
	PrefixUser         = "usr"
	PrefixRequest      = "req"
	PrefixWebhook      = "wh"
	PrefixDelivery     = "whd"
	PrefixAttempt      = "dlv"
	PrefixRefund       = "re"
	PrefixDispute      = "dsp"
	PrefixEvidence     = "file"
	PrefixPixQRCode    = "pqr"
	PrefixPaymentLink  = "plink"
	PrefixWithdrawal   = "wd"
	PrefixBatch        = "pbat"
	PrefixSubscription = "sub"
	PrefixEmail        = "em"
	PrefixToken        = "tok"
	PrefixReport       = "rpt"
	PrefixReplay       = "rpl"
	// PrefixLease names a dispatcher's leases on the deliveries it claims.
	PrefixLease = "lease"
)

// Alphabet is the base62 digits in ASCII order, the characters of every id
// after its prefix.
const Alphabet = base62Alphabet

// NewStem returns a new id less its last character. Deliveries are minted
// in SQL from one stem: an event's deliveries are written in the statement
// that writes the event, one per subscribed webhook, a number only that
// statement knows; it completes the stem with each delivery's place among
// them (Alphabet's character at that place, 0 to 61), so a delivery id has
// the format of every other id.
func NewStem(prefix string) string {
	id := New(prefix)
	return id[:len(id)-1]
}

// New returns prefix_ followed by 22 base62 characters encoding a UUIDv7:
// unique, and sortable by creation time because the alphabet is in ASCII order.
func New(prefix string) string {
	return prefix + "_" + encodeBase62(uuidV7())
}

// AtSeq returns an id of prefix made at t whose random part is seq
// instead: a benchmark's history, loaded in bulk, has ids of the service's
// format that it can mint again (an event's deliveries name it).
func AtSeq(prefix string, t time.Time, seq uint64) string {
	u := uuidV7At(t)
	binary.BigEndian.PutUint64(u[8:], seq)
	u[8] = 0x80 | (u[8] & 0x3f) // RFC 4122 variant
	return prefix + "_" + encodeBase62(u)
}

// PaymentFloor is the least payment id made at t or after (its
// millisecond, every other bit the least a UUIDv7 has), and PaymentCeiling
// the greatest made at t or before: a window of creation as a range of ids.
func PaymentFloor(t time.Time) uuid.UUID {
	var u uuid.UUID
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint16(u[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(u[2:6], uint32(ms))
	u[6], u[8] = 0x70, 0x80
	return u
}

// Floor is the least id of prefix made at t or after: a month of history
// is the range of ids between two floors (migration 030's id_floor, which
// partitions events, deliveries and attempts by month, is the same in SQL).
func Floor(prefix string, t time.Time) string {
	return prefix + "_" + encodeBase62(PaymentFloor(t))
}

// PaymentCeiling: see PaymentFloor.
func PaymentCeiling(t time.Time) uuid.UUID {
	u := PaymentFloor(t)
	u[6], u[7], u[8] = 0x7f, 0xff, 0xbf
	for i := 9; i < 16; i++ {
		u[i] = 0xff
	}
	return u
}

// NewPayment returns the UUIDv7 used as a payment id, made at now (its
// fraction of a millisecond kept, so ids made in one millisecond sort in
// creation order).
func NewPayment(now time.Time) uuid.UUID {
	return uuidV7At(now)
}

func uuidV7() [16]byte {
	u, err := uuid.NewV7()
	if err != nil {
		// uuid.NewV7 only fails when the system entropy source fails.
		panic(err)
	}
	return u
}

// uuidV7At builds a UUIDv7 whose timestamp is t, so that a payment's id and
// its created_at agree even under an injected clock.
func uuidV7At(t time.Time) uuid.UUID {
	var u uuid.UUID
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint16(u[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(u[2:6], uint32(ms))
	// rand_a carries the sub-millisecond fraction, so ids made in the same
	// millisecond still sort in creation order.
	subMs := uint16(uint64(t.Nanosecond()%1e6) * 4096 / 1e6)
	binary.BigEndian.PutUint16(u[6:8], 0x7000|subMs) // version 7
	_, _ = rand.Read(u[8:])
	u[8] = 0x80 | (u[8] & 0x3f) // RFC 4122 variant
	return u
}

func encodeBase62(b [16]byte) string {
	// The 128-bit number as two 64-bit halves, divided by 62 once per digit
	// (62^22 > 2^128, so 22 digits always suffice).
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	var out [22]byte
	for i := 21; i >= 0; i-- {
		var r uint64
		hi, r = bits.Div64(0, hi, 62)
		lo, r = bits.Div64(r, lo, 62)
		out[i] = base62Alphabet[r]
	}
	return string(out[:])
}
