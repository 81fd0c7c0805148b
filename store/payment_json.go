package store

import (
	"encoding/json"
	"time"

	"payments/pix"
)

// TimeFormat is how every timestamp leaves the service: ISO 8601, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// FormatTimePtr renders t in TimeFormat, or nil for nil.
func FormatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}

// PaymentPix is the payer-facing PIX data of a payment.
type PaymentPix struct {
	BRCode    string `json:"br_code"`
	QRCodeURL string `json:"qr_code_url"`
}

// paymentJSON is the public shape of a payment: the API's response body and
// the object frozen into events. Field order follows the seed's table.
type paymentJSON struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Livemode      bool              `json:"livemode"`
	Status        string            `json:"status"`
	AmountCents   int64             `json:"amount_cents"`
	AmountLabel   string            `json:"amount_label"`
	Currency      string            `json:"currency"`
	PaymentMethod string            `json:"payment_method"`
	ExternalID    *string           `json:"external_id"`
	Description   *string           `json:"description"`
	Customer      *Customer         `json:"customer"`
	Metadata      map[string]string `json:"metadata"`
	CorrelationID string            `json:"correlation_id"`
	FeeCents      int64             `json:"fee_cents"`
	Pix           PaymentPix        `json:"pix"`
	CheckoutURL   string            `json:"checkout_url"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
	PaidAt        *string           `json:"paid_at"`
	ExpiresAt     *string           `json:"expires_at"`
	CanceledAt    *string           `json:"canceled_at"`
	ExpiredAt     *string           `json:"expired_at"`
	RefundedAt    *string           `json:"refunded_at"`
}

// MarshalJSON renders the public representation.
func (p *Payment) MarshalJSON() ([]byte, error) {
	metadata := p.Metadata
	if metadata == nil {
		metadata = map[string]string{}
	}
	return json.Marshal(paymentJSON{
		ID:            p.ID.String(),
		Object:        "payment",
		Livemode:      p.Livemode,
		Status:        p.Status,
		AmountCents:   p.AmountCents,
		AmountLabel:   pix.FormatBRL(p.AmountCents),
		Currency:      p.Currency,
		PaymentMethod: p.PaymentMethod,
		ExternalID:    p.ExternalID,
		Description:   p.Description,
		Customer:      p.Customer,
		Metadata:      metadata,
		CorrelationID: p.CorrelationID,
		FeeCents:      p.FeeCents,
		Pix:           PaymentPix{BRCode: p.BRCode, QRCodeURL: p.QRCodeURL},
		CheckoutURL:   p.CheckoutURL,
		CreatedAt:     FormatTime(p.CreatedAt),
		UpdatedAt:     FormatTime(p.UpdatedAt),
		PaidAt:        FormatTimePtr(p.PaidAt),
		ExpiresAt:     FormatTimePtr(&p.ExpiresAt),
		CanceledAt:    FormatTimePtr(p.CanceledAt),
		ExpiredAt:     FormatTimePtr(p.ExpiredAt),
		RefundedAt:    FormatTimePtr(p.RefundedAt),
	})
}
