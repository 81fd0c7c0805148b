package store

import (
	"encoding/json"

	"payments/pix"
	"payments/store/jsonw"
)

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
		CreatedAt: jsonw.FormatTime(w.CreatedAt), UpdatedAt: jsonw.FormatTime(w.UpdatedAt),
		CompletedAt: jsonw.FormatTimePtr(w.CompletedAt), FailedAt: jsonw.FormatTimePtr(w.FailedAt),
	})
}
