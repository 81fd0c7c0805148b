package views

import (
	"context"

	"payments/pix"
	"payments/pix/cobv"
)

// RefundView is one refund on a payment's page.
type RefundView struct {
	ID            string
	AmountLabel   string
	Reason        string
	Status        string
	FailureReason string
	At            string
}

// DisputeView is one dispute on a payment's page.
type DisputeView struct {
	ID          string
	Status      string
	Stage       string
	Reason      string
	AmountLabel string
	// ReportedLabel is what the payer's bank claims (AmountLabel: what it
	// holds).
	ReportedLabel string
	InfractionID  string
	OpenedAt      string
	ClosedAt      string
	// RespondBy is the merchant's deadline to answer, AnalysisDeadline and
	// ReturnDeadline the institutions'.
	RespondBy        string
	AnalysisDeadline string
	ReturnDeadline   string
	// CanClose offers win/lose buttons (test mode, owner, open).
	CanClose bool
	// CanDefend offers the defense form: open, unanswered, before its
	// deadline, to whom may answer disputes.
	CanDefend bool
	// Defense is the merchant's answer, once given.
	Defense *DefenseView
}

// DefenseView is a dispute's defense as its page shows it.
type DefenseView struct {
	Text        string
	SubmittedAt string
	Files       []EvidenceLink
}

// EvidenceLink is one file of a defense, downloadable.
type EvidenceLink struct {
	Name      string
	URL       string
	SizeLabel string
}

// TransferView is one PIX transfer the PSP reported for a payment.
type TransferView struct {
	EndToEndID  string
	AmountLabel string
	Outcome     string
	At          string
	// ReturnStatus is where its return to the payer stands (pending,
	// returned, failed; empty: never asked), ReturnFailure why it failed;
	// CanReturn offers the return (an owner, a transfer that paid nothing,
	// not returned nor being returned).
	ReturnStatus  string
	ReturnFailure string
	CanReturn     bool
}

// MoneyLine is one line of a payment's money in R$: a part (Sign "+" or
// "−", or "" for the first) or a total the lines above it add up to.
type MoneyLine struct {
	Label       string
	Sign        string
	AmountLabel string
	Total       bool
	TestID      string
}

// PaymentMoney is what a payment's money lines are made of, all in cents:
// its amount, what was received (once paid) and, for a due-date charge
// paid, its parts that day; its fee, the fee its refunds returned, what
// they returned and what open disputes hold; and its net, the API's
// net_cents.
type PaymentMoney struct {
	AmountCents      int64
	Paid             bool
	ReceivedCents    int64
	Parts            *cobv.Breakdown
	FeeCents         int64
	FeeRefundedCents int64
	RefundedCents    int64
	HeldCents        int64
	NetCents         int64
}

// PaymentMoneyLines writes m as lines that add up: the amount, less the
// discount and abatement, plus fine and interest, is what was paid; less
// the fee, plus the fee returned, less what went back, is the net; less
// what disputes hold, what is free. A total is only shown where parts
// lead to it.
func PaymentMoneyLines(ctx context.Context, m PaymentMoney) []MoneyLine {
	lines := []MoneyLine{{Label: T(ctx, "money.amount"), AmountLabel: pix.FormatBRL(m.AmountCents), TestID: "money-amount"}}
	part := func(key string, cents int64, testID string) {
		switch {
		case cents > 0:
			lines = append(lines, MoneyLine{Label: T(ctx, key), Sign: "+", AmountLabel: pix.FormatBRL(cents), TestID: testID})
		case cents < 0:
			lines = append(lines, MoneyLine{Label: T(ctx, key), Sign: "−", AmountLabel: pix.FormatBRL(-cents), TestID: testID})
		}
	}
	total := func(key string, cents int64, testID string) {
		lines = append(lines, MoneyLine{Label: T(ctx, key), AmountLabel: pix.FormatBRL(cents), Total: true, TestID: testID})
	}
	base := m.AmountCents
	if m.Paid {
		owed := m.AmountCents
		if b := m.Parts; b != nil {
			part("money.discount", -b.DiscountCents, "money-discount")
			part("money.abatement", -b.AbatementCents, "money-abatement")
			part("money.fine", b.FineCents, "money-fine")
			part("money.interest", b.InterestCents, "money-interest")
			owed = b.AmountDueCents
		}
		// What the payer's bank sent beyond what the terms say (never seen:
		// a transfer of another amount pays nothing), so the lines still add up.
		part("money.difference", m.ReceivedCents-owed, "money-difference")
		if len(lines) > 1 {
			total("money.paid", m.ReceivedCents, "payment-amount-paid")
		}
		base = m.ReceivedCents
	}
	part("money.fee", -m.FeeCents, "payment-fee")
	part("money.fee_returned", m.FeeRefundedCents, "payment-fee-returned")
	part("money.refunded", -m.RefundedCents, "payment-refunded")
	if net := base - m.FeeCents + m.FeeRefundedCents - m.RefundedCents; net != m.NetCents {
		part("money.difference", m.NetCents-net, "money-net-difference") // the net is the API's, whatever the parts say
	}
	total("money.net", m.NetCents, "payment-net")
	if m.HeldCents > 0 {
		part("money.held", -m.HeldCents, "payment-held")
		total("money.free", m.NetCents-m.HeldCents, "payment-free")
	}
	return lines
}

// SplitView is one part of a split charge on its page: whose, by which
// rule, and what it got once paid ("" before).
type SplitView struct {
	AccountID, AccountName, Rule, PartLabel string
}
