package views

// SettingsPage shows the account (owners) and the user's preferences:
// language, the account's time zone (owners), password.
type SettingsPage struct {
	Nav       Nav
	AccountID string
	Name      string
	Email     string
	// Pricing is the account's fee: basis points and fixed cents.
	FeePercent string
	FeeFixed   string
	Locale     string
	TimeZone   string
	Error      string
	Notice     Notice
}
