package views

// PaymentDetail is one payment with its money, its events and their deliveries.
type PaymentDetail struct {
	// History is the payment's own audit rows (owners' page only).
	History []AuditView
	// Splits are its parts for other accounts, and KeptLabel what its own
	// account keeps of the net once paid ("" before).
	Splits    []SplitView
	KeptLabel string
	Nav       Nav
	ID        string
	Status    string
	// Standing is the state a person reads (PaymentStanding): partly
	// refunded and disputed are shown apart from plain paid.
	Standing string
	// AmountLabel is the charge's amount; HeadlineLabel what the page is
	// headed with: what was paid, once paid (a due-date charge paid late
	// or early paid another amount), else the amount.
	AmountLabel   string
	HeadlineLabel string
	// Money is every part of its money in lines that add up.
	Money       []MoneyLine
	ExternalID  string
	Description string
	Customer    *CustomerView
	Metadata    []KV
	TxID        string
	BRCode      string
	QRCodeURL   string
	CheckoutURL string
	CreatedAt   string
	PaidAt      string
	// ExpiresAt is shown while the charge can still be paid, and the
	// payment link with it (ShowLink).
	ExpiresAt string
	ShowLink  bool
	// Payable: pending with a BR Code, so the code and QR are shown;
	// Preparing: a live charge the PSP has not registered yet.
	Payable   bool
	Preparing bool
	Events    []EventView
	// CanSimulate is true in test mode for owners while the payment can still be paid.
	CanSimulate bool
	// BackURL and BackLabel lead to the list the page was reached from.
	BackURL   string
	BackLabel string
	// Account names the payment's account on the support console.
	Account string
	// Money: the payment's refunds, disputes and the PIX transfers received for it.
	Refunds   []RefundView
	Disputes  []DisputeView
	Transfers []TransferView
	// PSPSteps are the calls to the PSP about a live payment, its refunds
	// and its transfers.
	PSPSteps []PSPStep
	// CanRefund is true for owners while the payment is paid and has money
	// left to refund (RefundLeft, as typed in the form: 1.234,56);
	// CanDispute (test mode) while it is paid and was never disputed.
	CanRefund  bool
	RefundLeft string
	CanDispute bool
	Notice     Notice
	// Due is a due-date charge's due date and terms (nil otherwise).
	Due *DueView
}

// CustomerView is the payer as a person reads them: the document
// formatted (CPF 000.000.000-00, CNPJ 00.000.000/0000-00), or masked where
// only its owner's privacy is at stake.
type CustomerView struct {
	Name     string
	Email    string
	Document string
	Phone    string
}

// KV is one metadata pair.
type KV struct{ Key, Value string }

// EventView is one event on a payment's timeline with its deliveries.
type EventView struct {
	ID         string
	Type       string
	At         string
	Deliveries []EventDelivery
}

// EventDelivery is one webhook's delivery of an event.
type EventDelivery struct {
	WebhookID   string
	WebhookName string
	DeliveryID  string
	Status      string
	Attempts    int
}
