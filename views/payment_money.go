package views

// RefundView is one refund on a payment's page.
type RefundView struct {
	ID            string
	AmountLabel   string
	Reason        string
	Status        string
	FailureReason string
	At            string
}

// DisputeView is one dispute on a payment's page.
type DisputeView struct {
	ID          string
	Status      string
	Reason      string
	AmountLabel string
	OpenedAt    string
	ClosedAt    string
	// CanClose offers win/lose buttons (test mode, owner, open).
	CanClose bool
}

// TransferView is one PIX transfer the PSP reported for a payment.
type TransferView struct {
	EndToEndID  string
	AmountLabel string
	Outcome     string
	At          string
	// ReturnStatus is where its return to the payer stands (pending,
	// returned, failed; empty: never asked), ReturnFailure why it failed;
	// CanReturn offers the return (an owner, a transfer that paid nothing,
	// not returned nor being returned).
	ReturnStatus  string
	ReturnFailure string
	CanReturn     bool
}
