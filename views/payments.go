package views

// PaymentRow is one line of the payments table.
type PaymentRow struct {
	ID          string
	Status      string
	AmountLabel string
	ExternalID  string
	Description string
	Customer    string
	CreatedAt   string
}

// PaymentsPage is the payments list with its filters and cursors.
type PaymentsPage struct {
	Nav      Nav
	Rows     []PaymentRow
	Status   string
	Statuses []string
	Query    string
	From     string // YYYY-MM-DD, a day in the account's time zone
	To       string // YYYY-MM-DD
	NextURL  string
	PrevURL  string
	// CanCreate offers "new charge" (owners).
	CanCreate bool
}
