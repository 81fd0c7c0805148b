package views

// SettingsPage shows the account and lets the owner change their password.
type SettingsPage struct {
	Nav       Nav
	AccountID string
	Name      string
	Email     string
	Pricing   string
	Error     string
	Saved     bool
}
