package store

import (
	"strconv"
	"time"

	"payments/pix"
)

// TimeFormat is how every timestamp leaves the service: ISO 8601, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string {
	return string(appendTimeFormat(make([]byte, 0, len(TimeFormat)), t))
}

// FormatTimePtr renders t in TimeFormat, or nil for nil.
func FormatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}

// MarshalJSON renders the public representation: the API's response body
// and the object frozen into events. Field order follows the seed's table.
func (p *Payment) MarshalJSON() ([]byte, error) {
	return p.appendJSON(make([]byte, 0, 1024)), nil
}

func (p *Payment) appendJSON(b []byte) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, p.ID.String()...)
	b = append(b, `","object":"payment","livemode":`...)
	b = strconv.AppendBool(b, p.Livemode)
	b = append(b, `,"status":`...)
	b = AppendJSONString(b, p.Status)
	b = append(b, `,"amount_cents":`...)
	b = strconv.AppendInt(b, p.AmountCents, 10)
	b = append(b, `,"amount_label":`...)
	b = AppendJSONString(b, pix.FormatBRL(p.AmountCents))
	b = append(b, `,"currency":`...)
	b = AppendJSONString(b, p.Currency)
	b = append(b, `,"payment_method":`...)
	b = AppendJSONString(b, p.PaymentMethod)
	b = append(b, `,"external_id":`...)
	b = appendJSONStringOrNull(b, p.ExternalID)
	b = append(b, `,"description":`...)
	b = appendJSONStringOrNull(b, p.Description)
	b = append(b, `,"customer":`...)
	b = appendCustomerJSON(b, p.Customer)
	b = append(b, `,"metadata":`...)
	b = appendJSONStringMap(b, p.Metadata)
	b = append(b, `,"correlation_id":`...)
	b = AppendJSONString(b, p.CorrelationID)
	b = append(b, `,"fee_cents":`...)
	b = strconv.AppendInt(b, p.FeeCents, 10)
	b = append(b, `,"pix":{"br_code":`...)
	b = AppendJSONString(b, p.BRCode)
	b = append(b, `,"qr_code_url":`...)
	b = AppendJSONString(b, p.QRCodeURL)
	b = append(b, `},"checkout_url":`...)
	b = AppendJSONString(b, p.CheckoutURL)
	b = append(b, `,"created_at":`...)
	b = appendJSONTime(b, p.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendJSONTime(b, p.UpdatedAt)
	b = append(b, `,"paid_at":`...)
	b = appendJSONTimeOrNull(b, p.PaidAt)
	b = append(b, `,"expires_at":`...)
	b = appendJSONTime(b, p.ExpiresAt)
	b = append(b, `,"canceled_at":`...)
	b = appendJSONTimeOrNull(b, p.CanceledAt)
	b = append(b, `,"expired_at":`...)
	b = appendJSONTimeOrNull(b, p.ExpiredAt)
	b = append(b, `,"refunded_at":`...)
	b = appendJSONTimeOrNull(b, p.RefundedAt)
	return append(b, '}')
}

// appendCustomerJSON appends c as its JSON object, or null for nil.
func appendCustomerJSON(b []byte, c *Customer) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"name":`...)
	b = AppendJSONString(b, c.Name)
	b = append(b, `,"email":`...)
	b = AppendJSONString(b, c.Email)
	b = append(b, `,"document":`...)
	b = AppendJSONString(b, c.Document)
	b = append(b, `,"phone":`...)
	b = appendJSONStringOrNull(b, c.Phone)
	return append(b, '}')
}
