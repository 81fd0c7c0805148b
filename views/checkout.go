package views

// CheckoutPage is the payer's public page for one payment.
type CheckoutPage struct {
	PaymentID string
	Merchant  string
	// Via is the name the payer's bank shows as the receiver instead of
	// Merchant's ("" when it shows Merchant's own).
	Via         string
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
	// A due-date charge's due date (dd/mm/aaaa; "" for an immediate
	// charge), whether it is past it, and what makes up today's amount
	// (AmountLabel) when it differs from the original.
	DueDateLabel string
	Overdue      bool
	Lines        []AmountLine
}

// AmountLine is one part of what the payer owes today.
type AmountLine struct {
	Label       string
	AmountLabel string
	TestID      string
}

// Polls says the page keeps asking for news: while it can still change by
// itself (pending, preparing).
func (p CheckoutPage) Polls() bool { return p.State == "pending" || p.State == "preparing" }
