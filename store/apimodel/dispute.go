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
}
