package store

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store/jsonw"
)

// referencePayment is the payment's public shape as encoding/json writes it
// by reflection: the hand-written encoder must match it byte for byte.
type referencePayment struct {
	ID            string             `json:"id"`
	Object        string             `json:"object"`
	Livemode      bool               `json:"livemode"`
	Status        string             `json:"status"`
	AmountCents   int64              `json:"amount_cents"`
	AmountLabel   string             `json:"amount_label"`
	Currency      string             `json:"currency"`
	PaymentMethod string             `json:"payment_method"`
	ExternalID    *string            `json:"external_id"`
	Description   *string            `json:"description"`
	Customer      *referenceCustomer `json:"customer"`
	Metadata      map[string]string  `json:"metadata"`
	CorrelationID string             `json:"correlation_id"`
	FeeCents      int64              `json:"fee_cents"`
	Refunded      int64              `json:"amount_refunded_cents"`
	Net           int64              `json:"net_cents"`
	AmountDue     int64              `json:"amount_due_cents"`
	AmountPaid    *int64             `json:"amount_paid_cents"`
	DueDate       *string            `json:"due_date"`
	DaysAfterDue  *int               `json:"days_after_due"`
	Fine          *cobv.Value        `json:"fine"`
	Interest      *cobv.Interest     `json:"interest"`
	Discounts     *cobv.Discounts    `json:"discounts"`
	Abatement     *cobv.Value        `json:"abatement"`
	Subscription  *string            `json:"subscription"`
	Cycle         *Cycle             `json:"cycle"`
	PixQRCode     *string            `json:"pix_qr_code"`
	PaymentLink   *string            `json:"payment_link"`
	Splits        json.RawMessage    `json:"splits"`
	Pix           struct {
		BRCode    *string `json:"br_code"`
		QRCodeURL *string `json:"qr_code_url"`
	} `json:"pix"`
	CheckoutURL string  `json:"checkout_url"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	PaidAt      *string `json:"paid_at"`
	ExpiresAt   *string `json:"expires_at"`
	CanceledAt  *string `json:"canceled_at"`
	ExpiredAt   *string `json:"expired_at"`
	RefundedAt  *string `json:"refunded_at"`
}

// referenceCustomer is the customer as the API shows it: a subscriber
// (a cycle's customer) has no e-mail, null.
type referenceCustomer struct {
	Name     string  `json:"name"`
	Email    *string `json:"email"`
	Document string  `json:"document"`
	Phone    *string `json:"phone"`
}

func referenceJSON(t *testing.T, p *Payment) []byte {
	t.Helper()
	ref := referencePayment{
		ID: p.ID.String(), Object: "payment", Livemode: p.Livemode, Status: p.Status,
		AmountCents: p.AmountCents, AmountLabel: pix.FormatBRL(p.AmountCents), Currency: p.Currency,
		PaymentMethod: p.PaymentMethod, ExternalID: p.ExternalID, Description: p.Description,
		Metadata: p.Metadata, CorrelationID: p.CorrelationID, FeeCents: p.FeeCents,
		Refunded: p.AmountRefundedCents, Net: p.AmountCents - p.FeeCents - p.AmountRefundedCents + p.FeeRefundedCents,
		CheckoutURL: p.CheckoutURL, CreatedAt: jsonw.FormatTime(p.CreatedAt), UpdatedAt: jsonw.FormatTime(p.UpdatedAt),
		PaidAt: jsonw.FormatTimePtr(p.PaidAt), ExpiresAt: jsonw.FormatTimePtr(&p.ExpiresAt), CanceledAt: jsonw.FormatTimePtr(p.CanceledAt),
		ExpiredAt: jsonw.FormatTimePtr(p.ExpiredAt), RefundedAt: jsonw.FormatTimePtr(p.RefundedAt),
	}
	if c := p.Customer; c != nil {
		ref.Customer = &referenceCustomer{Name: c.Name, Document: c.Document, Phone: c.Phone}
		if c.Email != "" {
			ref.Customer.Email = &c.Email
		}
	}
	ref.AmountDue = p.AmountDueToday(time.Now())
	if p.PaidAt != nil {
		paid := p.ReceivedCents()
		ref.AmountPaid = &paid
	}
	if t := p.DueTerms; t != nil {
		ref.DueDate, ref.DaysAfterDue = &t.DueDate, &t.DaysAfterDue
		ref.Fine, ref.Interest, ref.Discounts, ref.Abatement = t.Fine, t.Interest, t.Discounts, t.Abatement
	}
	ref.Subscription, ref.Cycle, ref.PixQRCode, ref.PaymentLink = p.SubscriptionID, p.Cycle, p.PixQRCode, p.PaymentLink
	ref.Splits = json.RawMessage(`[]`)
	if len(p.Splits) > 0 {
		ref.Splits, _ = json.Marshal(p.apiSplits())
	}
	if ref.Metadata == nil {
		ref.Metadata = map[string]string{}
	}
	nonEmpty := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	// A live charge not registered yet has neither.
	ref.Pix.BRCode, ref.Pix.QRCodeURL = nonEmpty(p.BRCode), nonEmpty(p.QRCodeURL)
	b, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// awkward are strings that exercise every escape encoding/json makes.
var awkward = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rret",
	"\b\f\x00\x01\x1f\x7f", "café ação", "line\u2028para\u2029sep", "bad \xff\xfe utf8", "trunc \xe2\x82",
	"emoji 😀", "\u00a0nbsp", "/slash/", "R$ 1.234,56",
}

func TestPaymentJSONMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 23, 3, 4, 5, 678_000_000, time.FixedZone("BRT", -3*3600))
	later := at.Add(36 * time.Hour)
	full := &Payment{
		ID: uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e"), Livemode: true, Status: "paid",
		AmountCents: 123456789, Currency: "BRL", PaymentMethod: "pix", ExternalID: ptr("order-1"),
		Description: ptr("a <b>&c</b>"), CorrelationID: "corr", FeeCents: 99, AmountRefundedCents: 1000, FeeRefundedCents: 1, BRCode: "000201...6304ABCD",
		QRCodeURL: "https://x.test/qr?a=1&b=2", CheckoutURL: "https://x.test/c/1",
		Customer:  &Customer{Name: "Zé", Email: "z@x.test", Document: "12345678909", Phone: ptr("+5511999999999")},
		Metadata:  map[string]string{"b": "2", "a": "1", "": "empty key", "Z": "<>", "é": "\u2028"},
		CreatedAt: at, UpdatedAt: later, ExpiresAt: later, PaidAt: &later, CanceledAt: &at, ExpiredAt: &at, RefundedAt: &later,
	}
	two, pct := int64(200), cobv.Percent(150)
	dueToday := calendar.Today(time.Now()).String()
	due := &Payment{ID: uuid.New(), Status: "pending", AmountCents: 10000, CreatedAt: at, UpdatedAt: at, ExpiresAt: at, Metadata: map[string]string{},
		DueTerms: &cobv.Terms{DueDate: dueToday, DaysAfterDue: 3, Fine: &cobv.Value{AmountCents: &two},
			Interest: &cobv.Interest{PercentPerMonth: &pct, BusinessDays: true}, Abatement: &cobv.Value{Percent: &pct},
			Discounts: &cobv.Discounts{Fixed: []cobv.FixedDiscount{{Until: dueToday, AmountCents: &two}}}}}
	sub, next := "sub_1", "2026-12-11"
	cycle := &Payment{ID: uuid.New(), Status: "pending", AmountCents: 990, CreatedAt: at, UpdatedAt: at, ExpiresAt: at, Metadata: map[string]string{},
		Splits:         []Split{{Account: "acct_a", AmountCents: &two, FeePayer: FeePayerAccount}, {Account: "acct_\u2028", PercentBPS: &two, FeePayer: FeePayerRecipient}},
		SubscriptionID: &sub, PixQRCode: &sub, PaymentLink: &sub, Cycle: &Cycle{Number: 3, DueDate: "2026-12-10", Status: CycleRetrying, Attempts: 1, RetryPolicy: RetryThreeInSeven, NextAttemptDate: &next}}
	cases := []*Payment{full, due, cycle, {ID: uuid.New(), Status: "pending", AmountCents: -5, CreatedAt: at, UpdatedAt: at, ExpiresAt: at},
		{Metadata: map[string]string{}, Customer: &Customer{}}}
	for _, s := range awkward {
		cases = append(cases, &Payment{
			ID: uuid.New(), Status: s, Currency: s, PaymentMethod: s, ExternalID: &s, Description: &s,
			CorrelationID: s, BRCode: s, QRCodeURL: s, CheckoutURL: s, Metadata: map[string]string{s: s, s + "x": ""},
			Customer: &Customer{Name: s, Email: s, Document: s, Phone: &s}, CreatedAt: at, UpdatedAt: at, ExpiresAt: at,
		})
	}
	// Random strings over the awkward strings' bytes, to reach what the list does not.
	rng := rand.New(rand.NewPCG(7, 11))
	pool := strings.Join(awkward, "")
	for range 300 {
		var sb strings.Builder
		for range rng.IntN(24) {
			sb.WriteByte(pool[rng.IntN(len(pool))])
		}
		s := sb.String()
		cases = append(cases, &Payment{Description: &s, Metadata: map[string]string{s: s}, CorrelationID: s})
	}
	for i, p := range cases {
		got, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceJSON(t, p); string(got) != string(want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// A split charge's splits, written by hand into their column and into its
// API shape, are what encoding/json writes of them.
func TestSplitsJSONMatchesEncodingJSON(t *testing.T) {
	amount, bps := int64(1_234), int64(1_250)
	splits := []Split{{Account: "acct_a\u2028<", AmountCents: &amount, FeePayer: FeePayerAccount},
		{Account: "acct_b", PercentBPS: &bps, FeePayer: FeePayerRecipient}}
	same := func(what string, want []byte, err error, got []byte) {
		t.Helper()
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s (%v):\n got %s\nwant %s", what, err, got, want)
		}
	}
	want, err := json.Marshal(splits)
	same("column", want, err, appendSplitsColumn(nil, splits))
	now := time.Now()
	for _, p := range []*Payment{{AmountCents: 10_000, FeeCents: 99, Splits: splits}, {AmountCents: 10_000, FeeCents: 99, Splits: splits, PaidAt: &now}} {
		api := p.apiSplits()
		want, err := json.Marshal(api)
		same("api", want, err, appendAPISplits(nil, api))
	}
}
