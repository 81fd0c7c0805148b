package views

// CheckoutPage is the payer's public page for one payment.
type CheckoutPage struct {
	PaymentID   string
	Merchant    string
	AmountLabel string
	Description string
	BRCode      string
	QRCodeURL   string
	// State is what the payer can do: pending (pay it), preparing (a live
	// charge the PSP has not registered yet), paid, expired (also a pending
	// charge past its expiry the sweeper has not reached), canceled,
	// refunded. Only pending shows a code.
	State string
	// ExpiresAt is RFC 3339 for the countdown script; ExpiresLabel is shown without JS.
	ExpiresAt    string
	ExpiresLabel string
	PaidLabel    string
	// SandboxPayURL pays this live charge at the PSP sandbox's bank
	// (development only; empty otherwise).
	SandboxPayURL string
}

// Polls says the page keeps asking for news: while it can still change by
// itself (pending, preparing).
func (p CheckoutPage) Polls() bool { return p.State == "pending" || p.State == "preparing" }
