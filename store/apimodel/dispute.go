package apimodel

// Dispute is the public shape of a dispute: API responses and event snapshots.
type Dispute struct {
	ID          string  `json:"id"`
	Object      string  `json:"object"`
	Livemode    bool    `json:"livemode"`
	Status      string  `json:"status"`
	PaymentID   string  `json:"payment_id"`
	AmountCents int64   `json:"amount_cents"`
	AmountLabel string  `json:"amount_label"`
	Currency    string  `json:"currency"`
	Reason      string  `json:"reason"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	ClosedAt    *string `json:"closed_at"`
	// MED 2.0: added after the fields above, which keep their meaning
	// (amount_cents is what it holds, as amount_held_cents).
	AmountReportedCents int64           `json:"amount_reported_cents"`
	AmountHeldCents     int64           `json:"amount_held_cents"`
	InfractionID        *string         `json:"infraction_id"`
	Stage               string          `json:"stage"`
	RespondBy           string          `json:"respond_by"`
	AnalysisDeadline    string          `json:"analysis_deadline"`
	ReturnDeadline      string          `json:"return_deadline"`
	Defense             *DisputeDefense `json:"defense"`
}

// DisputeDefense is the merchant's answer, once given.
type DisputeDefense struct {
	Text        string            `json:"text"`
	SubmittedAt string            `json:"submitted_at"`
	Evidence    []DisputeEvidence `json:"evidence"`
}

// DisputeEvidence is one file of a defense: where it is served with the
// account's keys, and what it holds.
type DisputeEvidence struct {
	ID          string `json:"id"`
	Object      string `json:"object"`
	FileName    string `json:"file_name"`
	ContentType string `json:"content_type"`
	SizeBytes   int    `json:"size_bytes"`
	SHA256      string `json:"sha256"`
	URL         string `json:"url"`
	CreatedAt   string `json:"created_at"`
}
