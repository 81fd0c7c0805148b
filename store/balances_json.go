package store

import (
	"encoding/json"

	"payments/pix"
)

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
