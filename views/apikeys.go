package views

// APIKeysPage lists the account's keys; NewKey is shown once after creation.
type APIKeysPage struct {
	Nav    Nav
	Keys   []APIKeyRow
	NewKey string
	Notice Notice
	// Resources are those a restricted key may be given permissions on.
	Resources []string
	// Form is the restricted key's form as it was sent, with its error.
	Form APIKeyForm
}

// APIKeyForm is the restricted key's form.
type APIKeyForm struct {
	Name       string
	AllowedIPs string
	Levels     map[string]string // resource -> "", "read" or "write"
	Error      string
}

// APIKeyRow is one key, redacted.
type APIKeyRow struct {
	ID          string
	Name        string
	Mode        string
	Redacted    string
	CreatedAt   string
	CreatedBy   string
	RevokedAt   string
	Permissions []string // nil: every permission
	AllowedIPs  []string
	LastUsed    string // "" never
	LastUsedIP  string
}
