package store

import (
	"time"

	"payments/store/jsonw"
)

// WebhookJSON is the public shape of a webhook. Secret is present only in
// the create and rotate responses: the one time the secret is shown.
type WebhookJSON struct {
	ID                      string   `json:"id"`
	Object                  string   `json:"object"`
	Livemode                bool     `json:"livemode"`
	Name                    string   `json:"name"`
	URL                     string   `json:"url"`
	APIVersion              string   `json:"api_version"`
	Events                  []string `json:"events"`
	Enabled                 bool     `json:"enabled"`
	RateLimit               *int     `json:"rate_limit"`
	DisabledReason          *string  `json:"disabled_reason"`
	SecretHint              string   `json:"secret_hint"`
	PreviousSecretExpiresAt *string  `json:"previous_secret_expires_at"`
	FailingSince            *string  `json:"failing_since"`
	CreatedAt               string   `json:"created_at"`
	UpdatedAt               string   `json:"updated_at"`
	Secret                  *string  `json:"secret,omitempty"`
}

// JSON is w's public shape at now (a rotation's end shows only while it lasts).
func (w *Webhook) JSON(now time.Time) WebhookJSON {
	out := WebhookJSON{
		ID: w.ID, Object: "webhook", Livemode: w.Livemode, Name: w.Name, URL: w.URL, APIVersion: w.APIVersion,
		Events: w.Events, Enabled: w.Enabled, RateLimit: w.RateLimit, DisabledReason: w.DisabledReason, SecretHint: w.SecretHint,
		FailingSince: jsonw.FormatTimePtr(w.FailingSince), CreatedAt: jsonw.FormatTime(w.CreatedAt),
		UpdatedAt: jsonw.FormatTime(w.UpdatedAt),
	}
	if w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(now) {
		out.PreviousSecretExpiresAt = jsonw.FormatTimePtr(w.PreviousSecretExpiresAt)
	}
	return out
}
