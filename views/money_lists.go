package views

// MoneyListPage is one of the dashboard's lists of money that moved
// besides charges: refunds (Devoluções), disputes (Disputas) and payouts
// (Saques). Kind names it ("refund", "dispute", "withdrawal"): its title,
// its statuses' words and its path (/dashboard/<kind>s).
type MoneyListPage struct {
	Nav      Nav
	Kind     string
	Statuses []string
	Filter   MoneyListFilter
	Rows     []MoneyRow
	NextURL  string
	// Subject is the heading of the column that says what the money
	// belongs to: a payment, or a payout's Pix key.
	Subject string
}

// MoneyListFilter is what the list is narrowed to: a status and local days.
type MoneyListFilter struct{ Status, Since, Until string }

// Path is the list's address.
func (p MoneyListPage) Path() string { return "/dashboard/" + p.Kind + "s" }

// ExportType is the report the list exports as ("" for none: disputes
// are in the ledger's report).
func (p MoneyListPage) ExportType() string {
	return map[string]string{"refund": "refunds", "withdrawal": "payouts"}[p.Kind]
}

// MoneyRow is one refund, dispute or payout.
type MoneyRow struct {
	ID          string
	Status      string
	AmountLabel string
	// Subject is what it belongs to, linked when SubjectURL is set.
	Subject    string
	SubjectURL string
	Detail     string
	CreatedAt  string
}
