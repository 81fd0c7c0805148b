package views

// WebhookRow is one line of the webhooks list.
type WebhookRow struct {
	ID      string
	Name    string
	URL     string
	Events  []string
	Enabled bool
	// Disabled is why, as a code (manual, endpoint_gone, failing), when not enabled.
	Disabled    string
	LastOutcome string // a delivery status, or "" for none yet
	LastAt      string
	// Health: the last 24 hours' success rate in percent (-1: no attempts),
	// and since when it has been failing, if it is.
	SuccessRate  int
	FailingSince string
}

// WebhooksPage is Integration -> Webhooks.
type WebhooksPage struct {
	Nav  Nav
	Rows []WebhookRow
	// CountTest and CountLive are the account's webhooks per mode: the cap
	// (Max) counts both.
	CountTest, CountLive int
	Max                  int
	AtTheCap             bool
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
	// RateLimit is the deliveries-per-second field as typed ("" for none).
	RateLimit string
	// Signature is the algorithm chosen (create only): hmac-sha256 or ed25519.
	Signature string
	// Ordered holds each object's deliveries in order.
	Ordered bool
	// ForwardTrace sends each attempt's traceparent and tracestate.
	ForwardTrace bool
	// PaymentsVersion is the dated API version its events are rendered in
	// (a new one: the account's pin); Versions every version, newest first.
	PaymentsVersion string
	Versions        []string
	// Filter is the payload filter as typed ("" for none).
	Filter string
	// RemoveMTLS drops the webhook's mutual TLS files; HasMTLS says it
	// has some (edit).
	RemoveMTLS bool
	HasMTLS    bool
	AllEvents  []string
	Errors     map[string]string
	AtTheCap   bool
	Max        int
	// EditID is set when the form edits an existing webhook.
	EditID string
}
