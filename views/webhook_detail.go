package views

// WebhookDetail is one webhook: its settings, its health and its delivery
// console (filters, search, paging).
type WebhookDetail struct {
	Nav Nav
	// History is the webhook's own audit rows.
	History    []AuditView
	Webhook    WebhookRow
	APIVersion string
	SecretHint string
	// Signature is the webhook's algorithm; PublicKey (whpk_...) is shown
	// for ed25519, whose receivers verify with it.
	Signature string
	PublicKey string
	// Ordered: each object's deliveries go in order, one at a time.
	Ordered bool
	// ForwardTrace: each attempt carries the trace context.
	ForwardTrace bool
	// PaymentsVersion is the dated API version its events are rendered in.
	PaymentsVersion string
	// PayloadFilter is its payload filter (nil: none).
	PayloadFilter *string
	// Replays are its latest replays of a window, newest first.
	Replays []ReplayView
	// MTLS is what is shown of its mutual TLS (nil: none).
	MTLS *MTLSView
	// NewSecret is set once, right after creation or rotation.
	NewSecret         string
	RotationExpiresAt string
	ReadOnly          bool
	Health            HealthView
	Notice            Notice
	// TestResult is shown when "send test" was posted without htmx.
	TestResult *TestResult
	// EventTypes are the types a test may send (the subscribed ones first).
	EventTypes []string
	// The console: its filter, one page of deliveries, and the links to
	// the next (older) page and back to the newest.
	Filter      DeliveryFilterView
	Statuses    []string
	Deliveries  []DeliveryView
	NextURL     string
	NewestURL   string
	ResendSince string // datetime-local, a day ago
}

// HealthView is how the webhook's receiver has answered lately.
type HealthView struct {
	Attempts, Succeeded int
	Rate                int // percent; -1 without attempts
	LastError           string
	LastErrorAt         string
	FailingSince        string
	Failures            int
	DisabledReason      string
	// PausedUntil is when the receiver's Retry-After lets deliveries go again.
	PausedUntil string
	// SlowSince is when its attempts became slow (the slow lane); "" when fast.
	SlowSince string
	// Backlog is the deliveries waiting (Due of them due now); RateLimit
	// the deliveries per second allowed (0: no limit).
	Backlog, Due int
	RateLimit    int
}

// DeliveryFilterView is the console's filter as typed.
type DeliveryFilterView struct {
	Status, EventType, From, To, Query string
}

// Active says some filter is set.
func (f DeliveryFilterView) Active() bool {
	return f.Status != "" || f.EventType != "" || f.From != "" || f.To != "" || f.Query != ""
}

// DeliveryView is a delivery as the console lists it: the event, the
// payment (and order) it is about, where it stands.
type DeliveryView struct {
	ID         string
	WebhookID  string
	EventID    string
	EventType  string
	Status     string
	Test       bool
	Attempts   int
	LastStatus int
	LastError  string
	CreatedAt  string
	NextAt     string
	// RetryAfter says the next attempt waits for the receiver's Retry-After.
	RetryAfter bool
	// Waiting: held behind an earlier delivery of its object (ordered);
	// GaveUpInOrder: given up on an ordered webhook, so those behind it
	// went on without it (the gap).
	Waiting, GaveUpInOrder bool
	PaymentID              string
	ExternalID             string
	AmountLabel            string
}

// DeliveryPage is one delivery with every attempt, request and response.
type DeliveryPage struct {
	Nav         Nav
	WebhookName string
	Delivery    DeliveryView
	Attempts    []AttemptView
	ReadOnly    bool
	BackURL     string
	BackLabel   string
	Notice      Notice
}

// AttemptView is one attempt, request and response, bodies pretty-printed
// when they are JSON.
type AttemptView struct {
	ID             string
	Number         int
	At             string
	RequestURL     string
	RequestHeaders []Header
	RequestBody    string
	// RequestCutFrom is the sent body's length when the record keeps only
	// its start ("": whole); ResponseCut says the answer's was cut.
	RequestCutFrom  string
	ResponseStatus  int
	ResponseHeaders []Header
	ResponseBody    string
	ResponseCut     bool
	DurationMS      int
	// ErrorClass is a code (timeout, connection ...), ErrorMessage its detail.
	ErrorClass   string
	ErrorMessage string
}

// Header is one name: value line, in a stable order.
type Header struct{ Name, Value string }

// TestResult is the inline answer of "send test".
type TestResult struct {
	Success    bool
	Status     int
	LatencyMS  int64
	Body       string
	ErrorClass string
	EventType  string
	DeliveryID string
	WebhookID  string
}

// EventCatalog documents every event type with sample payloads.
type EventCatalog struct {
	Nav    Nav
	Events []EventDoc
	// VerifyHMAC and VerifyEd25519 are the Node verifiers the suite runs.
	VerifyHMAC, VerifyEd25519 string
}

// EventDoc is one event type with what its v2 and v1 deliveries carry.
type EventDoc struct {
	Type     string
	SampleV2 string
	SampleV1 string
}

// MTLSView is what a webhook's page shows of its mutual TLS: never the key.
type MTLSView struct {
	// The client certificate (Subject "" for none).
	Subject, Issuer, Fingerprint, ExpiresAt string
	// Expiring: it ends within 30 days (DaysLeft) or has ended (Expired).
	Expiring, Expired bool
	DaysLeft          int
	// The pinned CAs ("" for none).
	ServerCASubjects, ServerCAFingerprint string
}

// ReplayView is one replay of a window as the console lists it: the
// window in the reader's time, and where it stands in words.
type ReplayView struct {
	Status, Window, Progress string
}
