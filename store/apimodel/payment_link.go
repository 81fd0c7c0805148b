package apimodel

// PaymentLink is the public shape of a payment link.
type PaymentLink struct {
	ID             string   `json:"id"`
	Object         string   `json:"object"`
	Livemode       bool     `json:"livemode"`
	Status         string   `json:"status"`
	Available      bool     `json:"available"`
	URL            string   `json:"url"`
	QRCodeURL      string   `json:"qr_code_url"`
	Description    string   `json:"description"`
	AmountCents    *int64   `json:"amount_cents"`
	AmountLabel    *string  `json:"amount_label"`
	MinAmountCents *int64   `json:"min_amount_cents"`
	MaxAmountCents *int64   `json:"max_amount_cents"`
	Collect        []string `json:"collect"`
	MaxUses        *int64   `json:"max_uses"`
	// Uses are its charges paid; OpenCharges those a payer may still pay.
	Uses                int64   `json:"uses"`
	OpenCharges         int64   `json:"open_charges"`
	AmountReceivedCents int64   `json:"amount_received_cents"`
	ExpiresAt           *string `json:"expires_at"`
	CreatedAt           string  `json:"created_at"`
	UpdatedAt           string  `json:"updated_at"`
}
