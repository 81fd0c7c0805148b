package operations

import (
	"fmt"

	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store"
)

// The most each of a due-date charge's modalities may be (the README's
// "Due-date charges" states them): API Pix accepts up to 100%, which no
// merchant means, and which made a R$ 1.000.000,00 charge owe R$ 3,6
// billion. A payer with a CPF is a consumer: the dashboard also warns past
// the Código de Defesa do Consumidor's 2% fine and 1% a month.
const (
	// MaxFinePercent bounds the fine: 10.00% (as an amount, 10% of the charge).
	MaxFinePercent cobv.Percent = 10_00
	// MaxInterestPercentPerMonth bounds interest: 10.00% a month, that is
	// 0.33% a day, or per day an amount of at most a thirtieth of 10% of the
	// charge; a year's rate stays within API Pix's own 100.00%.
	MaxInterestPercentPerMonth cobv.Percent = 10_00
	maxInterestPercentPerDay   cobv.Percent = 33
	maxInterestPercentPerYear  cobv.Percent = 100_00

	// ConsumerFinePercent and ConsumerInterestPercentPerMonth are the
	// Código de Defesa do Consumidor's limits (art. 52, § 1, and the
	// courts' reading of art. 406 of the Código Civil): the dashboard warns
	// a merchant who sets more for a CPF payer.
	ConsumerFinePercent             cobv.Percent = 2_00
	ConsumerInterestPercentPerMonth cobv.Percent = 1_00
)

// CheckDueTerms is every rule a due-date charge's terms keep, for a charge
// of amountCents made on today: API Pix's (cobv.Terms.Check), each
// modality's maximum, and that what the payer owes on the last payable
// day (the worst case: the fine and every day of interest) is never more
// than a payment may be (store.MaxAmountCents). The first rule broken,
// naming its parameter; nil when they all hold. The API, the dashboard and
// CreatePayment all ask it.
func CheckDueTerms(t *cobv.Terms, amountCents int64, today calendar.Date) *cobv.Problem {
	if p := t.Check(amountCents, today); p != nil {
		return p
	}
	if f := t.Fine; f != nil {
		if f.Percent != nil && *f.Percent > MaxFinePercent {
			return &cobv.Problem{Param: "fine.percent", Message: fmt.Sprintf("fine.percent must be at most %s.", MaxFinePercent)}
		}
		if f.AmountCents != nil && *f.AmountCents*10_000 > amountCents*int64(MaxFinePercent) {
			return &cobv.Problem{Param: "fine.amount_cents", Message: fmt.Sprintf(
				"fine.amount_cents must be at most %s%% of the charge's amount_cents (%d).", MaxFinePercent, amountCents*int64(MaxFinePercent)/10_000)}
		}
	}
	if i := t.Interest; i != nil {
		for name, limit := range map[string]struct {
			rate *cobv.Percent
			max  cobv.Percent
		}{"percent_per_day": {i.PercentPerDay, maxInterestPercentPerDay}, "percent_per_month": {i.PercentPerMonth, MaxInterestPercentPerMonth},
			"percent_per_year": {i.PercentPerYear, maxInterestPercentPerYear}} {
			if limit.rate != nil && *limit.rate > limit.max {
				return &cobv.Problem{Param: "interest." + name, Message: fmt.Sprintf(
					"interest.%s must be at most %s (interest is at most %s%% a month).", name, limit.max, MaxInterestPercentPerMonth)}
			}
		}
		if a := i.AmountCentsPerDay; a != nil && *a*30*10_000 > amountCents*int64(MaxInterestPercentPerMonth) {
			return &cobv.Problem{Param: "interest.amount_cents_per_day", Message: fmt.Sprintf(
				"interest.amount_cents_per_day must be at most %d: thirty days of it at most %s%% of the charge's amount_cents.",
				max(amountCents*int64(MaxInterestPercentPerMonth)/10_000/30, 1), MaxInterestPercentPerMonth)}
		}
	}
	last := t.LastPayableDay()
	if worst := t.On(amountCents, last); worst.AmountDueCents > store.MaxAmountCents {
		param := "fine"
		if t.Interest != nil {
			param = "interest"
		}
		return &cobv.Problem{Param: param, Message: fmt.Sprintf(
			"With these terms the payer would owe %d cents (%s) on the last payable day, %s: more than a payment may be (%d, %s). Lower the %s, the amount or days_after_due.",
			worst.AmountDueCents, pix.FormatBRL(worst.AmountDueCents), last, store.MaxAmountCents, pix.FormatBRL(store.MaxAmountCents), param)}
	}
	return nil
}

// ConsumerWarnings are the terms that pass what the Código de Defesa do
// Consumidor allows a merchant to charge a consumer (a CPF payer): a fine
// above 2% or interest above 1% a month ("fine", "interest"; none: nil).
// Not a refusal (a merchant may have a contract that allows it, and a CNPJ
// payer is no consumer): the dashboard says it in words.
func ConsumerWarnings(t *cobv.Terms, amountCents int64) []string {
	if t == nil {
		return nil
	}
	var out []string
	if f := t.Fine; f != nil && ((f.Percent != nil && *f.Percent > ConsumerFinePercent) ||
		(f.AmountCents != nil && *f.AmountCents*10_000 > amountCents*int64(ConsumerFinePercent))) {
		out = append(out, "fine")
	}
	if i := t.Interest; i != nil {
		monthly := int64(-1) // hundredths of a percent a month
		switch {
		case i.PercentPerDay != nil:
			monthly = int64(*i.PercentPerDay) * 30
		case i.PercentPerMonth != nil:
			monthly = int64(*i.PercentPerMonth)
		case i.PercentPerYear != nil:
			monthly = int64(*i.PercentPerYear) / 12
		case i.AmountCentsPerDay != nil && amountCents > 0:
			monthly = *i.AmountCentsPerDay * 30 * 10_000 / amountCents
		}
		if monthly > int64(ConsumerInterestPercentPerMonth) {
			out = append(out, "interest")
		}
	}
	return out
}
