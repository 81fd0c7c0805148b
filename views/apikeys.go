package views

// APIKeysPage lists the account's keys; NewKey is shown once after creation.
type APIKeysPage struct {
	Nav    Nav
	Keys   []APIKeyRow
	NewKey string
	Notice Notice
}

// APIKeyRow is one key, redacted.
type APIKeyRow struct {
	ID        string
	Mode      string
	Redacted  string
	CreatedAt string
	RevokedAt string
}
