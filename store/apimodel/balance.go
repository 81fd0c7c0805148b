package apimodel

// Balance is the public shape of a balance.
type Balance struct {
	Object         string `json:"object"`
	Livemode       bool   `json:"livemode"`
	Currency       string `json:"currency"`
	AvailableCents int64  `json:"available_cents"`
	AvailableLabel string `json:"available_label"`
	PendingCents   int64  `json:"pending_cents"`
	PendingLabel   string `json:"pending_label"`
}
