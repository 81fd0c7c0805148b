package views

// StaticQRPage is a static QR code's public page, to print or show at a
// counter: whom it pays, what for, its amount or that the payer types it,
// the QR and its copia e cola.
type StaticQRPage struct {
	Merchant string
	// Via is the name the payer's bank shows as the receiver instead of
	// Merchant's ("" when it shows Merchant's own).
	Via         string
	Description string
	// AmountLabel is a fixed amount ("" when the payer types it).
	AmountLabel string
	BRCode      string
	QRCodeURL   string
	// ExpiresAt is when it stops taking payments ("" for never).
	ExpiresAt string
}
