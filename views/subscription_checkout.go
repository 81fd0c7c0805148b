package views

// SubscriptionCheckout is the payer's page of a subscription: what they
// authorize and the QR that authorizes it.
type SubscriptionCheckout struct {
	ID, Merchant, Contract, Description, Status string
	// Via is the name the payer's bank shows as the receiver instead of
	// Merchant's ("" when it shows Merchant's own).
	Via string
	// AmountLabel is a fixed amount each cycle; CeilingLabel the most a
	// variable one charges.
	AmountLabel, CeilingLabel string
	Interval                  string
	Start, End                string // dd/mm/aaaa; End "" for no end
	Retries                   bool
	// BRCode and QRCodeURL while it awaits authorization; PaysFirst when
	// the QR also pays the first cycle.
	BRCode, QRCodeURL string
	PaysFirst         bool
	// SandboxAuthorizeURL opens this live code at the PSP sandbox's bank
	// (development only).
	SandboxAuthorizeURL string
}
