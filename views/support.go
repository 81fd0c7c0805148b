package views

// PSPProblem is a PIX transfer that paid no charge, for support to resolve.
type PSPProblem struct {
	EndToEndID  string
	TxID        string
	AmountLabel string
	Outcome     string
	At          string
	PaymentURL  string
	// ReturnStatus is where its return to the payer stands (empty: not asked).
	ReturnStatus string
}

// SupportPage is the support console's search and its results.
type SupportPage struct {
	Nav     Nav
	Query   string
	Results []SupportRow
	// Problems are the latest PIX transfers that paid nothing: an amount
	// mismatch, an unknown txid, or a second transfer for a paid charge.
	Problems []PSPProblem
	// AwaitingLive are accounts that signed up and wait for live mode.
	AwaitingLive []AwaitingAccount
	Notice       Notice
	// Subscriptions found by payer document or contract.
	Subscriptions []SupportSubscriptionRow
}

// SupportSubscriptionRow is a subscription found across accounts, its
// payer's document masked.
type SupportSubscriptionRow struct {
	ID, Account, Status, Payer, Document, Contract, AmountLabel, NextCycle string
	Livemode                                                               bool
}

// AwaitingAccount is an account whose live mode staff have not turned on.
type AwaitingAccount struct {
	ID, Name, Document, Email, Since string
}

// SupportRow is a payment found across accounts. The customer's document
// is masked: support reads it back to a caller, never needs it whole.
type SupportRow struct {
	ID          string
	Account     string
	Livemode    bool
	Status      string
	AmountLabel string
	ExternalID  string
	Customer    string
	Document    string
	CreatedAt   string
}
