package apimodel

// Webhook is the public shape of a webhook. Secret is present only in
// the create and rotate responses: the one time the secret is shown.
type Webhook struct {
	ID                      string   `json:"id"`
	Object                  string   `json:"object"`
	Livemode                bool     `json:"livemode"`
	Name                    string   `json:"name"`
	URL                     string   `json:"url"`
	APIVersion              string   `json:"api_version"`
	PaymentsVersion         string   `json:"payments_version"`
	Events                  []string `json:"events"`
	Enabled                 bool     `json:"enabled"`
	RateLimit               *int     `json:"rate_limit"`
	Ordered                 bool     `json:"ordered"`
	ForwardTrace            bool     `json:"forward_trace"`
	Filter                  *string  `json:"filter"`
	MTLS                    *MTLS    `json:"mtls"`
	DisabledReason          *string  `json:"disabled_reason"`
	SecretHint              string   `json:"secret_hint"`
	SignatureAlgorithm      string   `json:"signature_algorithm"`
	PublicKey               *string  `json:"public_key"`
	PreviousSecretExpiresAt *string  `json:"previous_secret_expires_at"`
	FailingSince            *string  `json:"failing_since"`
	PausedUntil             *string  `json:"paused_until"`
	CreatedAt               string   `json:"created_at"`
	UpdatedAt               string   `json:"updated_at"`
	Secret                  *string  `json:"secret,omitempty"`
}

// MTLS is what is shown of a webhook's mutual TLS: never its private key.
type MTLS struct {
	ClientCertificate *ClientCertificate `json:"client_certificate"`
	ServerCA          *ServerCA          `json:"server_ca"`
}

// ClientCertificate describes the certificate a webhook presents.
type ClientCertificate struct {
	Subject           string `json:"subject"`
	Issuer            string `json:"issuer"`
	FingerprintSHA256 string `json:"fingerprint_sha256"`
	ExpiresAt         string `json:"expires_at"`
	// ExpiringSoon: it ends within 30 days (or has ended).
	ExpiringSoon bool `json:"expiring_soon"`
}

// ServerCA describes the CAs a webhook's receiver must chain to.
type ServerCA struct {
	Subjects          string `json:"subjects"`
	FingerprintSHA256 string `json:"fingerprint_sha256"`
}
