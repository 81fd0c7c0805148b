package views

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
