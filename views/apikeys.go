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
	// LiveAllowed says the account may hold live keys (its live mode is
	// activated): else the page offers only test keys.
	LiveAllowed bool
	// Subaccounts are the platform's, a restricted key may be limited to.
	Subaccounts []AccountChoice
	// PaymentsVersion is the dated API version the account's integration
	// is pinned to; Versions every version, newest first.
	PaymentsVersion string
	Versions        []string
}

// Modes are the modes the page offers keys in.
func (p APIKeysPage) Modes() []string {
	if p.LiveAllowed {
		return []string{"test", "live"}
	}
	return []string{"test"}
}

// APIKeyForm is the restricted key's form.
type APIKeyForm struct {
	// QuickName is the name typed in the quick (full key) form; the rest is
	// the restricted key's form, open when Restricted (or Error) says so.
	QuickName  string
	Restricted bool
	Name       string
	AllowedIPs string
	Levels     map[string]string // resource -> "", "read" or "write"
	// Subaccounts are the subaccounts chosen to limit the key to.
	Subaccounts []string
	Error       string
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
	// Subaccounts name the subaccounts the key acts for only.
	Subaccounts []string
	LastUsed    string // "" never
	LastUsedIP  string
	// LimitedBy is the role of the person who made the key when it bounds
	// what the key may do (a maker who is not an owner or admin): a key is
	// never stronger than its maker.
	LimitedBy string
	// MakerRemoved says the key was revoked because its maker left the team.
	MakerRemoved bool
}
