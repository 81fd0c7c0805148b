package views

// What a person reads as a payment's state: its status, except that a paid
// payment under an open dispute reads "disputed" and one partly given back
// reads "partially_refunded" (both are status "paid" in the API, whose
// amount_refunded_cents and disputes say the same).
const (
	StandingDisputed          = "disputed"
	StandingPartiallyRefunded = "partially_refunded"
)

// PaymentStanding is the state shown for a payment of status with
// refundedCents back with the payer and, when disputed, an open dispute.
func PaymentStanding(status string, refundedCents int64, disputed bool) string {
	if status != "paid" {
		return status
	}
	switch {
	case disputed:
		return StandingDisputed
	case refundedCents > 0:
		return StandingPartiallyRefunded
	}
	return status
}
