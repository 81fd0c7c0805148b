package store

import (
	"encoding/json"

	"payments/pix"
	"payments/store/jsonw"
)

// refundJSON is the public shape of a refund: API responses and event snapshots.
type refundJSON struct {
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

// MarshalJSON renders the public representation.
func (r *Refund) MarshalJSON() ([]byte, error) {
	return json.Marshal(refundJSON{
		ID: r.ID, Object: "refund", Livemode: r.Livemode, Status: r.Status, PaymentID: r.PaymentID.String(),
		AmountCents: r.AmountCents, AmountLabel: pix.FormatBRL(r.AmountCents), FeeCents: r.FeeCents, Currency: "BRL",
		Reason: r.Reason, Description: r.Description, FailureReason: r.FailureReason,
		CreatedAt: jsonw.FormatTime(r.CreatedAt), UpdatedAt: jsonw.FormatTime(r.UpdatedAt),
		CompletedAt: jsonw.FormatTimePtr(r.CompletedAt),
	})
}
