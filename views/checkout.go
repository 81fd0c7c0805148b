package views

// CheckoutPage is the payer's public page for one payment.
type CheckoutPage struct {
	PaymentID   string
	Merchant    string
	AmountLabel string
	Description string
	BRCode      string
	QRCodeURL   string
	Status      string
	// Preparing says the PSP has not registered this live charge yet: it
	// cannot be paid, and the page waits for it.
	Preparing bool
	// SandboxPayURL pays this live charge at the PSP sandbox's bank
	// (development only; empty otherwise).
	SandboxPayURL string
	// ExpiresAt is RFC 3339 for the countdown script; ExpiresLabel is shown without JS.
	ExpiresAt    string
	ExpiresLabel string
}
