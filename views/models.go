// Package views holds the dashboard's templ components. Components receive
// view models built by handlers and never touch the database.
package views

// Nav is what the layout needs to know about the signed-in user.
type Nav struct {
	Email     string
	Role      string
	Livemode  bool
	CSRFToken string
	Active    string
}

// LoginForm is the login page's state.
type LoginForm struct {
	Email     string
	Error     string
	CSRFToken string
}

// PaymentRow is one line of the payments table.
type PaymentRow struct {
	ID          string
	Status      string
	AmountLabel string
	ExternalID  string
	Customer    string
	CreatedAt   string
}

// PaymentsPage is the payments list with its filters and cursors.
type PaymentsPage struct {
	Nav      Nav
	Rows     []PaymentRow
	Status   string
	Statuses []string
	NextURL  string
	PrevURL  string
}

// ErrorPage is a full-page error.
type ErrorPage struct {
	Status    int
	Title     string
	Message   string
	RequestID string
}
