package views

// PaymentLinksPage lists the account's payment links.
type PaymentLinksPage struct {
	Nav       Nav
	Rows      []PaymentLinkRow
	NextURL   string
	CanCreate bool
}

// PaymentLinkRow is one link in the list; Standing is what its page does
// now (LinkStanding).
type PaymentLinkRow struct {
	ID, Description, AmountLabel, Uses, Received, Standing, CreatedAt string
}

// PaymentLinkForm makes a payment link: values as typed, errors by field.
type PaymentLinkForm struct {
	Nav                                    Nav
	Description, AmountKind, Amount        string
	MinAmount, MaxAmount, MaxUses, Expires string
	CollectPayer, CollectEmail             bool
	Errors                                 map[string]string
}

// PaymentLinkDetail is one link: what to share (its address and QR), what
// it asks, and what it brought in.
type PaymentLinkDetail struct {
	Nav                                             Nav
	ID, Description, URL, QRCodeURL, AmountLabel    string
	Standing, Uses, Open, Received, Collects        string
	ExpiresAt, CreatedAt, PaymentsURL, DownloadName string
	CanDeactivate                                   bool
	Notice                                          Notice
}

// PixQRCodesPage lists the account's static QR codes.
type PixQRCodesPage struct {
	Nav       Nav
	Rows      []PixQRCodeRow
	NextURL   string
	CanCreate bool
}

// PixQRCodeRow is one static code in the list.
type PixQRCodeRow struct {
	ID, Description, AmountLabel, Payments, Received, Standing, CreatedAt string
}

// PixQRCodeForm makes a static code: values as typed, errors by field.
type PixQRCodeForm struct {
	Nav                          Nav
	Description, Amount, Expires string
	Errors                       map[string]string
}

// PixQRCodeDetail is one static code: its QR to print or download, its
// copia e cola and page, and what it brought in.
type PixQRCodeDetail struct {
	Nav                                              Nav
	ID, Description, AmountLabel, BRCode, QRCodeURL  string
	PageURL, Standing, Payments, Received, ExpiresAt string
	CreatedAt, PaymentsURL, DownloadName             string
	Notice                                           Notice
	// CanDeactivate offers the button: an active code, to who may.
	CanDeactivate bool
}

// SubaccountsPage lists a platform's subaccounts with their balances in
// the mode shown, each to open.
type SubaccountsPage struct {
	Nav       Nav
	Rows      []SubaccountRow
	NextURL   string
	CanCreate bool
	Form      SubaccountForm
}

// SubaccountRow is one subaccount in the list.
type SubaccountRow struct {
	ID, Name, Document, Email, PixKey, Status, Available, Pending, CreatedAt string
}

// SubaccountForm makes a subaccount: values as typed, errors by field.
type SubaccountForm struct {
	Name, Document, Email, PixKey string
	Errors                        map[string]string
}
