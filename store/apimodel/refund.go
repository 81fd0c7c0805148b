package apimodel

// Refund is the public shape of a refund: API responses and event snapshots.
type Refund struct {
	ID            string  `json:"id"`
	Object        string  `json:"object"`
	Livemode      bool    `json:"livemode"`
	Status        string  `json:"status"`
	PaymentID     string  `json:"payment_id"`
	AmountCents   int64   `json:"amount_cents"`
	AmountLabel   string  `json:"amount_label"`
	FeeCents      int64   `json:"fee_cents"`
	Currency      string  `json:"currency"`
	Reason        string  `json:"reason"`
	Description   *string `json:"description"`
	FailureReason *string `json:"failure_reason"`
	CreatedAt     string  `json:"created_at"`
	UpdatedAt     string  `json:"updated_at"`
	CompletedAt   *string `json:"completed_at"`
}
