package store

import (
	"encoding/json"

	"payments/pix"
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
		CreatedAt: FormatTime(d.CreatedAt), UpdatedAt: FormatTime(d.UpdatedAt), ClosedAt: FormatTimePtr(d.ClosedAt),
	})
}

// withdrawalJSON is the public shape of a withdrawal.
type withdrawalJSON struct {
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
}

// MarshalJSON renders the public representation.
func (w *Withdrawal) MarshalJSON() ([]byte, error) {
	metadata := w.Metadata
	if metadata == nil {
		metadata = map[string]string{}
	}
	return json.Marshal(withdrawalJSON{
		ID: w.ID, Object: "withdrawal", Livemode: w.Livemode, Status: w.Status, AmountCents: w.AmountCents,
		AmountLabel: pix.FormatBRL(w.AmountCents), Currency: "BRL", PixKey: w.PixKey, PixKeyType: w.PixKeyType,
		Description: w.Description, Metadata: metadata, EndToEndID: w.EndToEndID, FailureReason: w.FailureReason,
		CreatedAt: FormatTime(w.CreatedAt), UpdatedAt: FormatTime(w.UpdatedAt),
		CompletedAt: FormatTimePtr(w.CompletedAt), FailedAt: FormatTimePtr(w.FailedAt),
	})
}

// balanceJSON is the public shape of a balance.
type balanceJSON struct {
	Object         string `json:"object"`
	Livemode       bool   `json:"livemode"`
	Currency       string `json:"currency"`
	AvailableCents int64  `json:"available_cents"`
	AvailableLabel string `json:"available_label"`
	PendingCents   int64  `json:"pending_cents"`
	PendingLabel   string `json:"pending_label"`
}

// MarshalJSON renders the public representation.
func (b *Balance) MarshalJSON() ([]byte, error) {
	return json.Marshal(balanceJSON{
		Object: "balance", Livemode: b.Livemode, Currency: "BRL",
		AvailableCents: b.AvailableCents, AvailableLabel: pix.FormatBRL(b.AvailableCents),
		PendingCents: b.PendingCents, PendingLabel: pix.FormatBRL(b.PendingCents),
	})
}
