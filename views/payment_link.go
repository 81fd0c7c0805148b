package views

// PaymentLinkPage is a payment link's public page: whom the payer pays and
// for what, the amount or its range, the data the link asks, with what
// was typed and each field's error; or, when the link takes no payer,
// why (Closed).
type PaymentLinkPage struct {
	Action   string
	Merchant string
	// Via is the name the payer's bank shows as the receiver instead of
	// Merchant's ("" when it shows Merchant's own).
	Via         string
	Description string
	// AmountLabel is a fixed amount; RangeLabel the range of a chosen one.
	AmountLabel, RangeLabel string
	// Amount, Name, Document and Email are as the payer typed them.
	Amount, Name, Document, Email  string
	AskName, AskDocument, AskEmail bool
	Errors                         map[string]string
	// Closed says why the link takes no payer now ("": it takes one).
	Closed string
}
