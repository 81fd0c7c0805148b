package apimodel

// Withdrawal is the public shape of a withdrawal.
type Withdrawal struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Livemode      bool              `json:"livemode"`
	Status        string            `json:"status"`
	AmountCents   int64             `json:"amount_cents"`
	AmountLabel   string            `json:"amount_label"`
	Currency      string            `json:"currency"`
	PixKey        string            `json:"pix_key"`
	PixKeyType    string            `json:"pix_key_type"`
	Description   *string           `json:"description"`
	Metadata      map[string]string `json:"metadata"`
	EndToEndID    *string           `json:"end_to_end_id"`
	FailureReason *string           `json:"failure_reason"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
	CompletedAt   *string           `json:"completed_at"`
	FailedAt      *string           `json:"failed_at"`
	// Contest is its contest (MED 2.0 for money sent), null until made.
	Contest *WithdrawalContest `json:"contest"`
}

// WithdrawalContest is a withdrawal's contest: why, where it stands and
// what came back.
type WithdrawalContest struct {
	Status              string  `json:"status"`
	Reason              string  `json:"reason"`
	Description         string  `json:"description"`
	AmountReturnedCents *int64  `json:"amount_returned_cents"`
	Reference           *string `json:"reference"`
	CreatedAt           string  `json:"created_at"`
	ResolvedAt          *string `json:"resolved_at"`
}
