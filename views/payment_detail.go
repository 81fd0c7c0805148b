package views

// PaymentDetail is one payment with its events and their deliveries.
type PaymentDetail struct {
	Nav         Nav
	ID          string
	Status      string
	AmountLabel string
	FeeLabel    string
	ExternalID  string
	Description string
	Customer    string
	TxID        string
	BRCode      string
	QRCodeURL   string
	CheckoutURL string
	CreatedAt   string
	ExpiresAt   string
	Events      []EventView
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
	// CanRefund is true for owners while the payment is paid; CanDispute
	// (test mode) while it is paid and was never disputed.
	CanRefund  bool
	CanDispute bool
	Notice     Notice
}

// EventView is one event on a payment's timeline with its deliveries.
type EventView struct {
	ID         string
	Type       string
	At         string
	Deliveries []EventDelivery
}

// EventDelivery is one webhook's delivery of an event.
type EventDelivery struct {
	WebhookID string
	Status    string
	Attempts  int
}
