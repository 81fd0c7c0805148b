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
}

// ExpiryChoices are the lifetimes the form offers, in seconds, with their message ids.
var ExpiryChoices = []struct{ Seconds, Label string }{
	{"900", "new_payment.expires_15m"}, {"3600", "new_payment.expires_1h"}, {"86400", "new_payment.expires_1d"},
	{"259200", "new_payment.expires_3d"}, {"604800", "new_payment.expires_7d"},
}
