package apimodel

// PixQRCode is the public shape of a static Pix QR code.
type PixQRCode struct {
	ID                  string  `json:"id"`
	Object              string  `json:"object"`
	Livemode            bool    `json:"livemode"`
	Status              string  `json:"status"`
	AmountCents         *int64  `json:"amount_cents"`
	AmountLabel         *string `json:"amount_label"`
	Description         *string `json:"description"`
	TxID                string  `json:"txid"`
	BRCode              string  `json:"br_code"`
	QRCodeURL           string  `json:"qr_code_url"`
	PageURL             string  `json:"page_url"`
	ExpiresAt           *string `json:"expires_at"`
	Payments            int64   `json:"payments"`
	AmountReceivedCents int64   `json:"amount_received_cents"`
	CreatedAt           string  `json:"created_at"`
	UpdatedAt           string  `json:"updated_at"`
}
