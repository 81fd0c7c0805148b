package views

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
