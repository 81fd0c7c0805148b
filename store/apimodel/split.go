package apimodel

import "encoding/json"

// Split is one part of a split charge as the API shows it: net_cents is
// what its account got once the charge was paid (null before).
type Split struct {
	Account     string       `json:"account"`
	AmountCents *int64       `json:"amount_cents"`
	Percent     *json.Number `json:"percent"`
	FeePayer    string       `json:"fee_payer"`
	NetCents    *int64       `json:"net_cents"`
}
