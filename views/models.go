// Package views holds the dashboard's templ components. Components receive
// view models built by handlers and never touch the database.
package views

// Nav is what the layout needs to know about the signed-in user.
type Nav struct {
	Email     string
	Role      string
	Livemode  bool
	CSRFToken string
	Active    string
}

// LoginForm is the login page's state.
type LoginForm struct {
	Email     string
	Error     string
	CSRFToken string
}

// PaymentRow is one line of the payments table.
type PaymentRow struct {
	ID          string
	Status      string
	AmountLabel string
	ExternalID  string
	Customer    string
	CreatedAt   string
}

// PaymentsPage is the payments list with its filters and cursors.
type PaymentsPage struct {
	Nav      Nav
	Rows     []PaymentRow
	Status   string
	Statuses []string
	Query    string
	From     string // YYYY-MM-DD
	To       string // YYYY-MM-DD
	NextURL  string
	PrevURL  string
}

// ErrorPage is a full-page error.
type ErrorPage struct {
	Status    int
	Title     string
	Message   string
	RequestID string
}

// WebhookRow is one line of the webhooks list.
type WebhookRow struct {
	ID          string
	Name        string
	URL         string
	Events      []string
	Enabled     bool
	Disabled    string // why, in words, when not enabled
	LastOutcome string // "succeeded", "failed", "pending" or "" for none yet
	LastAt      string
}

// WebhooksPage is Integration -> Webhook.
type WebhooksPage struct {
	Nav      Nav
	Rows     []WebhookRow
	Count    int // across both modes: the cap counts both
	Max      int
	AtTheCap bool
	// AutoDisabled counts webhooks the service disabled (410 or 5 days failing).
	AutoDisabled int
}

// WebhookForm is the create form with its values and field errors.
type WebhookForm struct {
	Nav        Nav
	Name       string
	URL        string
	APIVersion string
	Events     []string
	AllEvents  []string
	Errors     map[string]string
	AtTheCap   bool
	Max        int
	// EditID is set when the form edits an existing webhook.
	EditID string
}

// WebhookDetail is one webhook with its recent deliveries.
type WebhookDetail struct {
	Nav        Nav
	Webhook    WebhookRow
	APIVersion string
	SecretHint string
	// NewSecret is set once, right after creation or rotation.
	NewSecret         string
	RotationExpiresAt string
	Deliveries        []DeliveryView
	ReadOnly          bool
	// TestResult is shown when "send test" was posted without htmx.
	TestResult *TestResult
}

// DeliveryView is a delivery with its attempts.
type DeliveryView struct {
	ID        string
	EventID   string
	EventType string
	Status    string
	Attempts  []AttemptView
	CreatedAt string
	NextAt    string
}

// AttemptView is one attempt, request and response.
type AttemptView struct {
	ID              string
	Number          int
	At              string
	RequestHeaders  []Header
	RequestBody     string
	ResponseStatus  int
	ResponseHeaders []Header
	ResponseBody    string
	DurationMS      int
	Error           string
}

// Header is one name: value line, in a stable order.
type Header struct{ Name, Value string }

// TestResult is the inline answer of "send test".
type TestResult struct {
	Success   bool
	Status    int
	LatencyMS int64
	Body      string
	Error     string
}

// ReadOnly is true for support staff, who see every account and change nothing.
func (n Nav) ReadOnly() bool { return n.Role == "support" }

// CheckoutPage is the payer's public page for one payment.
type CheckoutPage struct {
	PaymentID   string
	Merchant    string
	AmountLabel string
	Description string
	BRCode      string
	QRCodeURL   string
	Status      string
	// ExpiresAt is RFC 3339 for the countdown script; ExpiresLabel is shown without JS.
	ExpiresAt    string
	ExpiresLabel string
}

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
	// CanRefund is true for owners while the payment is paid; CanDispute
	// (test mode) while it is paid and was never disputed.
	CanRefund  bool
	CanDispute bool
	Notice     Notice
}

// Notice is a one-line message after an action (Error: it failed).
type Notice struct {
	Text  string
	Error bool
}

// RefundView is one refund on a payment's page.
type RefundView struct {
	ID          string
	AmountLabel string
	Reason      string
	At          string
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
}

// BalancePage is the account's money in the current mode.
type BalancePage struct {
	Nav               Nav
	AvailableLabel    string
	PendingLabel      string
	AvailableNegative bool
	Form              WithdrawForm
	Withdrawals       []WithdrawalRow
	Activity          []LedgerRow
	// CanSimulate offers complete/fail on pending withdrawals (test mode).
	CanSimulate bool
	Notice      Notice
}

// WithdrawForm is the withdraw form's values and errors.
type WithdrawForm struct {
	Amount      string
	PixKey      string
	Description string
	AmountError string
	PixKeyError string
	Error       string
}

// WithdrawalRow is one line of the withdrawals table.
type WithdrawalRow struct {
	ID            string
	Status        string
	AmountLabel   string
	PixKey        string
	PixKeyType    string
	FailureReason string
	CreatedAt     string
}

// LedgerRow is one ledger entry on the Balance page.
type LedgerRow struct {
	Type        string
	Balance     string
	AmountLabel string
	Credit      bool
	SourceID    string
	// SourceURL links the payment behind the entry, when there is one to show.
	SourceURL string
	At        string
}

// PSPProblem is a PIX transfer that paid no charge, for support to resolve.
type PSPProblem struct {
	EndToEndID  string
	TxID        string
	AmountLabel string
	Outcome     string
	At          string
	PaymentURL  string
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

// SupportPage is the support console's search and its results.
type SupportPage struct {
	Nav     Nav
	Query   string
	Results []SupportRow
	// Problems are the latest PIX transfers that paid nothing: an amount
	// mismatch, an unknown txid, or a second transfer for a paid charge.
	Problems []PSPProblem
}

// SupportRow is a payment found across accounts.
type SupportRow struct {
	ID          string
	Account     string
	Livemode    bool
	Status      string
	AmountLabel string
	ExternalID  string
	Customer    string
	CreatedAt   string
}

// APIKeysPage lists the account's keys; NewKey is shown once after creation.
type APIKeysPage struct {
	Nav    Nav
	Keys   []APIKeyRow
	NewKey string
}

// APIKeyRow is one key, redacted.
type APIKeyRow struct {
	ID        string
	Mode      string
	Redacted  string
	CreatedAt string
	RevokedAt string
}

// SettingsPage shows the account and lets the owner change their password.
type SettingsPage struct {
	Nav       Nav
	AccountID string
	Name      string
	Email     string
	Pricing   string
	Error     string
	Saved     bool
}
