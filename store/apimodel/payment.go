package apimodel

import (
	"strconv"
	"time"

	"github.com/google/uuid"

	"payments/pix"
	"payments/store/jsonw"
)

// Payment is the public shape of a payment: the API's answers and the
// object frozen into its events. Fields in the seed's order.
type Payment struct {
	ID                  uuid.UUID
	Livemode            bool
	Status              string
	AmountCents         int64
	Currency            string
	PaymentMethod       string
	ExternalID          *string
	Description         *string
	Customer            *Customer
	Metadata            map[string]string
	CorrelationID       string
	FeeCents            int64
	AmountRefundedCents int64
	NetCents            int64
	// AmountDueCents is what the payer owes today (0 when nothing can be
	// paid); AmountPaidCents what they paid (nil until paid).
	AmountDueCents  int64
	AmountPaidCents *int64
	// Due is a due-date charge's terms as the API shows them, its JSON
	// object's members from "due_date" to "abatement" (nil: an immediate
	// charge, all null).
	Due []byte
	// Subscription and Cycle place a cycle of a subscription (Cycle is its
	// JSON object; nil for none).
	Subscription *string
	Cycle        []byte
	// PixQRCode is the static QR code a payment into it names (nil: none).
	PixQRCode *string
	// PaymentLink is the payment link that made the charge (nil: none).
	PaymentLink *string
	// Splits is the JSON array of its splits (nil: none, shown as []).
	Splits      []byte
	BRCode      string
	QRCodeURL   string
	CheckoutURL string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	PaidAt      *time.Time
	ExpiresAt   time.Time
	CanceledAt  *time.Time
	ExpiredAt   *time.Time
	RefundedAt  *time.Time
}

// Customer is the payer as the API shows them; document is compact (a
// CPF's digits, a CNPJ's characters); Email "" is shown as null (a
// subscription cycle's customer, its subscriber, has none).
type Customer struct {
	Name     string
	Email    string
	Document string
	Phone    *string
}

// AppendJSON appends p's JSON, byte for byte what encoding/json would write
// for it (a test holds it to that), without reflection: the API's hottest
// answer and every payment event's snapshot.
func (p *Payment) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, p.ID.String()...)
	b = append(b, `","object":"payment","livemode":`...)
	b = strconv.AppendBool(b, p.Livemode)
	b = append(b, `,"status":`...)
	b = jsonw.AppendString(b, p.Status)
	b = append(b, `,"amount_cents":`...)
	b = strconv.AppendInt(b, p.AmountCents, 10)
	b = append(b, `,"amount_label":`...)
	b = jsonw.AppendString(b, pix.FormatBRL(p.AmountCents))
	b = append(b, `,"currency":`...)
	b = jsonw.AppendString(b, p.Currency)
	b = append(b, `,"payment_method":`...)
	b = jsonw.AppendString(b, p.PaymentMethod)
	b = append(b, `,"external_id":`...)
	b = jsonw.AppendStringOrNull(b, p.ExternalID)
	b = append(b, `,"description":`...)
	b = jsonw.AppendStringOrNull(b, p.Description)
	b = append(b, `,"customer":`...)
	b = AppendCustomer(b, p.Customer)
	b = append(b, `,"metadata":`...)
	b = jsonw.AppendStringMap(b, p.Metadata)
	b = append(b, `,"correlation_id":`...)
	b = jsonw.AppendString(b, p.CorrelationID)
	b = append(b, `,"fee_cents":`...)
	b = strconv.AppendInt(b, p.FeeCents, 10)
	b = append(b, `,"amount_refunded_cents":`...)
	b = strconv.AppendInt(b, p.AmountRefundedCents, 10)
	b = append(b, `,"net_cents":`...)
	b = strconv.AppendInt(b, p.NetCents, 10)
	b = append(b, `,"amount_due_cents":`...)
	b = strconv.AppendInt(b, p.AmountDueCents, 10)
	b = append(b, `,"amount_paid_cents":`...)
	if p.AmountPaidCents == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *p.AmountPaidCents, 10)
	}
	if p.Due == nil {
		b = append(b, `,"due_date":null,"days_after_due":null,"fine":null,"interest":null,"discounts":null,"abatement":null`...)
	} else {
		b = append(append(b, ','), p.Due...)
	}
	b = append(b, `,"subscription":`...)
	b = jsonw.AppendStringOrNull(b, p.Subscription)
	b = append(b, `,"cycle":`...)
	if p.Cycle == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, p.Cycle...)
	}
	b = append(b, `,"pix_qr_code":`...)
	b = jsonw.AppendStringOrNull(b, p.PixQRCode)
	b = append(b, `,"payment_link":`...)
	b = jsonw.AppendStringOrNull(b, p.PaymentLink)
	b = append(b, `,"splits":`...)
	if p.Splits == nil {
		b = append(b, `[]`...)
	} else {
		b = append(b, p.Splits...)
	}
	// A live charge has no BR Code (nor QR image) until the PSP registered it.
	b = append(b, `,"pix":{"br_code":`...)
	b = appendStringOrNullIfEmpty(b, p.BRCode)
	b = append(b, `,"qr_code_url":`...)
	b = appendStringOrNullIfEmpty(b, p.QRCodeURL)
	b = append(b, `},"checkout_url":`...)
	b = jsonw.AppendString(b, p.CheckoutURL)
	b = append(b, `,"created_at":`...)
	b = jsonw.AppendTime(b, p.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = jsonw.AppendTime(b, p.UpdatedAt)
	b = append(b, `,"paid_at":`...)
	b = jsonw.AppendTimeOrNull(b, p.PaidAt)
	b = append(b, `,"expires_at":`...)
	b = jsonw.AppendTime(b, p.ExpiresAt)
	b = append(b, `,"canceled_at":`...)
	b = jsonw.AppendTimeOrNull(b, p.CanceledAt)
	b = append(b, `,"expired_at":`...)
	b = jsonw.AppendTimeOrNull(b, p.ExpiredAt)
	b = append(b, `,"refunded_at":`...)
	b = jsonw.AppendTimeOrNull(b, p.RefundedAt)
	return append(b, '}')
}

// appendStringOrNullIfEmpty appends s, or null for "".
func appendStringOrNullIfEmpty(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonw.AppendString(b, s)
}

// AppendCustomer appends c as its JSON object, or null for nil: the
// payment's customer, in answers and in its column alike.
func AppendCustomer(b []byte, c *Customer) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"name":`...)
	b = jsonw.AppendString(b, c.Name)
	b = append(b, `,"email":`...)
	if c.Email == "" {
		b = append(b, "null"...) // a subscriber: a subscription takes no e-mail
	} else {
		b = jsonw.AppendString(b, c.Email)
	}
	b = append(b, `,"document":`...)
	b = jsonw.AppendString(b, c.Document)
	b = append(b, `,"phone":`...)
	b = jsonw.AppendStringOrNull(b, c.Phone)
	return append(b, '}')
}
