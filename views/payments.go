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
	// DueLabel is a due-date charge's due date (dd/mm/aaaa); DueBadge the
	// message id of what it says of a pending one (due today, overdue).
	DueLabel string
	DueBadge string
}

// DueFilters are the payments list's due-date filters, with their message ids.
var DueFilters = []struct{ Value, Label string }{
	{"today", "due.due_today"}, {"overdue", "due.overdue"}, {"upcoming", "due.upcoming"}, {"expired", "due.expired"},
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
	Due      string // a DueFilters value, or ""
	// PaymentLink and PixQRCode keep the charges of one payment link, or
	// the payments into one static code ("": any).
	PaymentLink, PixQRCode string
	NextURL                string
	PrevURL                string
	// CanCreate offers "new charge" (owners).
	CanCreate bool
}
