package store

import (
	"encoding/json"

	"payments/pix"
	"payments/store/jsonw"
)

// disputeJSON is the public shape of a dispute: API responses and event snapshots.
type disputeJSON struct {
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

// MarshalJSON renders the public representation.
func (d *Dispute) MarshalJSON() ([]byte, error) {
	return json.Marshal(disputeJSON{
		ID: d.ID, Object: "dispute", Livemode: d.Livemode, Status: d.Status, PaymentID: d.PaymentID.String(),
		AmountCents: d.AmountCents, AmountLabel: pix.FormatBRL(d.AmountCents), Currency: "BRL", Reason: d.Reason,
		CreatedAt: jsonw.FormatTime(d.CreatedAt), UpdatedAt: jsonw.FormatTime(d.UpdatedAt), ClosedAt: jsonw.FormatTimePtr(d.ClosedAt),
	})
}
