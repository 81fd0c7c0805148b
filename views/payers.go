package views

// PayersPage is the account's payers (Clientes), grouped by CPF or CNPJ,
// most recently charged first, each linked to their payments.
type PayersPage struct {
	Nav Nav
	// Filter: a CPF or CNPJ (or its first digits) and the days of the
	// payer's last charge.
	Document, Since, Until string
	Rows                   []PayerRow
	NextURL                string
}

// PayerRow is one payer.
type PayerRow struct {
	Document, DocumentLabel, Name, Email string
	Payments, Paid                       string
	PaidLabel, LastChargeAt              string
	PaymentsURL                          string
}

// Filtered says a filter narrows the list.
func (p PayersPage) Filtered() bool { return p.Document != "" || p.Since != "" || p.Until != "" }
