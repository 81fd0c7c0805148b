package views

// PaymentForm creates a charge from the dashboard: a payment link to send
// to a customer. Values are as typed; Errors sit beside their fields.
type PaymentForm struct {
	Nav           Nav
	Amount        string
	Description   string
	ExternalID    string
	ExpiresIn     string
	CustomerName  string
	CustomerEmail string
	CustomerDoc   string
	Errors        map[string]string
	Error         string
	// A due-date charge's fields, as typed: its due date and days payable
	// after, and each rule's kind and value (a kind "" is no such rule).
	DueDate, DaysAfterDue                      string
	FineKind, FineValue                        string
	InterestKind, InterestValue                string
	InterestBusiness                           bool
	DiscountKind, DiscountValue, DiscountUntil string
	DiscountBusiness                           bool
	AbatementKind, AbatementValue              string
	// PreviewDate is a day the person asked the preview for; Preview what
	// the payer owes on the days that matter.
	PreviewDate string
	Preview     []PreviewRow
	// Warnings say, in words, what the terms charge a consumer (a CPF
	// payer) beyond what the law allows: not refusals.
	Warnings []string
}

// PreviewRow is what a payer owes on one day.
type PreviewRow struct {
	Date, DateLabel, AmountLabel string
	// Note says why it differs from the amount (discount, fine and
	// interest); Closed names the holiday or says weekend.
	Note, Closed string
	Payable      bool
}

// Choice is a select's option: its value and message id.
type Choice struct{ Value, Label string }

// Kinds of each rule the form offers.
var (
	FineKinds      = []Choice{{"percent", "due.kind.percent"}, {"amount", "due.kind.amount"}}
	InterestKinds  = []Choice{{"percent_per_month", "due.kind.percent_per_month"}, {"percent_per_day", "due.kind.percent_per_day"}, {"percent_per_year", "due.kind.percent_per_year"}, {"amount_per_day", "due.kind.amount_per_day"}}
	DiscountKinds  = []Choice{{"percent", "due.kind.percent_until"}, {"amount", "due.kind.amount_until"}, {"per_day_percent", "due.kind.per_day_percent"}, {"per_day_amount", "due.kind.per_day_amount"}}
	AbatementKinds = FineKinds
)

// ExpiryChoices are the lifetimes the form offers, in seconds, with their message ids.
var ExpiryChoices = []struct{ Seconds, Label string }{
	{"900", "new_payment.expires_15m"}, {"3600", "new_payment.expires_1h"}, {"86400", "new_payment.expires_1d"},
	{"259200", "new_payment.expires_3d"}, {"604800", "new_payment.expires_7d"},
}
