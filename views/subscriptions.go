package views

// SubscriptionsPage lists the account's subscriptions.
type SubscriptionsPage struct {
	Nav       Nav
	Rows      []SubscriptionRow
	NextURL   string
	CanCreate bool
}

// SubscriptionRow is one subscription in the list.
type SubscriptionRow struct {
	ID, Status, Payer, Contract, AmountLabel, Interval, NextCycle, CreatedAt string
}

// SubscriptionForm creates a subscription; values as typed, errors by field.
type SubscriptionForm struct {
	Nav                                              Nav
	PayerName, PayerDocument, Contract, Description  string
	Interval, StartDate, EndDate, Amount, AmountKind string
	Journey                                          string
	// BankISPB, BankBranch and BankNumber are the payer's account, where
	// payer_bank_request pushes its request.
	BankISPB, BankBranch, BankNumber string
	Retries                          bool
	Errors                           map[string]string
	Error                            string
	Intervals, Journeys              []string
}

// SubscriptionDetail is one subscription with its cycles.
type SubscriptionDetail struct {
	Nav                                                    Nav
	ID, Status, Journey, Payer, PayerDocument, Contract    string
	Description, Interval, AmountLabel, Start, End, RecID  string
	NextCycle, CanceledBy, CreatedAt, ActivatedAt, EndedAt string
	Retries                                                bool
	// BRCode, QRCodeURL and CheckoutURL while it awaits a QR authorization.
	BRCode, QRCodeURL, CheckoutURL string
	Cycles                         []CycleRow
	// CanCancel while it can still charge; CanSimulate in test mode: the
	// payer's bank's answers (Awaiting: authorize or reject; Active: a
	// cycle's debit, the payer's cancellation).
	CanCancel, CanSimulate, Awaiting, Active bool
	Notice                                   Notice
}

// CycleRow is one cycle: its payment and where it stands.
type CycleRow struct {
	PaymentID, Number, DueDate, AmountLabel, Status, Attempts, NextAttempt string
}
