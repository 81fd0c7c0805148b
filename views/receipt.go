package views

import (
	"context"
	"time"

	"payments/pix"
)

// ReceiptTimeZone is where a receipt's date and time are told: Brasília,
// as Pix receipts do, whatever zone the merchant's dashboard uses.
const ReceiptTimeZone = "America/Sao_Paulo"

// ReceiptFacts are what a paid charge's receipt (comprovante) states.
type ReceiptFacts struct {
	PaymentID string
	Livemode  bool
	// AmountCents is what the payer paid; PaidAt when the transfer
	// settled (the PSP's time, else when the charge was marked paid).
	AmountCents int64
	PaidAt      time.Time
	// The receiver is the merchant's account; its document is digits (a
	// CNPJ shown whole, a CPF masked), empty when it signed up without one.
	ReceiverName     string
	ReceiverDocument string
	// Via is the name the payer's bank shows as the receiver instead of
	// ReceiverName's ("" when it shows the receiver's own).
	Via string
	// The payer as the charge named them (digits; empty when not given).
	PayerName     string
	PayerDocument string
	Description   string
	// EndToEndID is the Banco Central's id of the transfer (empty for a
	// test payment, which no bank moved); TxID the charge's.
	EndToEndID string
	TxID       string
	// RefundedCents were given back by refunds that succeeded; RefundedAt
	// is when the whole was (nil while only a part was).
	RefundedCents int64
	RefundedAt    *time.Time
	// Parts are a split charge's parts: whom it paid besides the receiver.
	Parts []ReceiptPart
}

// ReceiptPart is one part of a split charge: its account's name and what
// it got.
type ReceiptPart struct {
	Name        string
	AmountCents int64
}

// Receipt is a receipt ready to show, as a page or a PDF: its lines in the
// reader's language, times in Brasília.
type Receipt struct {
	PaymentID   string
	Test        bool
	AmountLabel string
	PaidAtISO   string
	PaidAtLabel string
	Lines       []ReceiptLine
	PDFURL      string
	CheckoutURL string
}

// ReceiptLine is one labelled fact of a receipt.
type ReceiptLine struct {
	Label, Value, TestID string
	// Mono sets identifiers apart (ids are copied and compared by eye).
	Mono bool
}

// NewReceipt writes the facts for ctx's language, with times in Brasília
// (ctx's locale should carry ReceiptTimeZone).
func NewReceipt(ctx context.Context, f ReceiptFacts) Receipt {
	r := Receipt{PaymentID: f.PaymentID, Test: !f.Livemode, AmountLabel: pix.FormatBRL(f.AmountCents),
		PaidAtISO: ISO(f.PaidAt), PaidAtLabel: T(ctx, "receipt.at_brasilia", "At", TimeSeconds(ctx, f.PaidAt)),
		PDFURL: "/pay/" + f.PaymentID + "/receipt.pdf", CheckoutURL: "/pay/" + f.PaymentID}
	add := func(label, value, testID string, mono bool) {
		r.Lines = append(r.Lines, ReceiptLine{Label: T(ctx, label), Value: value, TestID: testID, Mono: mono})
	}
	add("receipt.amount", r.AmountLabel, "receipt-amount", false)
	add("receipt.paid_at", r.PaidAtLabel, "receipt-paid-at", false)
	add("receipt.receiver", f.ReceiverName, "receipt-receiver", false)
	if f.ReceiverDocument != "" {
		doc := pix.FormatDocument(f.ReceiverDocument)
		if len(f.ReceiverDocument) == 11 { // a person's CPF, masked as the payer's is
			doc = pix.MaskDocument(f.ReceiverDocument)
		}
		add("receipt.receiver_document", doc, "receipt-receiver-document", false)
	}
	if f.Via != "" {
		add("receipt.via", f.Via, "receipt-via", false)
	}
	payer := f.PayerName
	if payer == "" {
		payer = T(ctx, "receipt.not_given")
	}
	add("receipt.payer", payer, "receipt-payer", false)
	if f.PayerDocument != "" {
		add("receipt.payer_document", pix.MaskDocument(f.PayerDocument), "receipt-payer-document", false)
	}
	if f.Description != "" {
		add("receipt.description", f.Description, "receipt-description", false)
	}
	e2e := f.EndToEndID
	if e2e == "" {
		e2e = T(ctx, "receipt.no_e2e_test")
	}
	add("receipt.e2e", e2e, "receipt-e2e", f.EndToEndID != "")
	add("receipt.txid", f.TxID, "receipt-txid", true)
	add("receipt.payment_id", f.PaymentID, "receipt-payment-id", true)
	for _, part := range f.Parts {
		r.Lines = append(r.Lines, ReceiptLine{Label: T(ctx, "receipt.split_part", "Name", part.Name), Value: pix.FormatBRL(part.AmountCents),
			TestID: "receipt-split-part"})
	}
	if f.RefundedCents > 0 {
		refunded := pix.FormatBRL(f.RefundedCents)
		if f.RefundedAt != nil {
			refunded = T(ctx, "receipt.refunded_value", "Amount", refunded, "At", Time(ctx, *f.RefundedAt))
		}
		add("receipt.refunded", refunded, "receipt-refunded", false)
	}
	return r
}
