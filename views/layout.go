package views

// Nav is what the layout needs to know about the signed-in user.
type Nav struct {
	Email     string
	Role      string
	Livemode  bool
	CSRFToken string
	Active    string
}

// ErrorPage is a full-page error. BackURL leads back into the dashboard
// (empty on the payer's pages).
type ErrorPage struct {
	Status    int
	Title     string
	Message   string
	RequestID string
	BackURL   string
	BackLabel string
}

// Notice is a one-line message after an action (Error: it failed).
type Notice struct {
	Text  string
	Error bool
}

// ReadOnly is true for support staff, who see every account and change nothing.
func (n Nav) ReadOnly() bool { return n.Role == "support" }
