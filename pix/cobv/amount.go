package cobv

import (
	"math/big"
	"slices"

	"payments/pix/calendar"
)

// Breakdown is what a payer owes on a date, part by part, in cents.
type Breakdown struct {
	Date           calendar.Date
	AmountCents    int64 // the charge's original amount
	AbatementCents int64
	DiscountCents  int64
	FineCents      int64
	InterestCents  int64
	AmountDueCents int64
	// Payable is false after the last payable day.
	Payable bool
}

// Day counts of the rates given per month and per year. Calendar days
// count the commercial month (30) and year (360), so that 12% a year is
// exactly 1% a month; business days count the 252-day business year
// (ANBIMA's, and the Banco Central's own for its rates) and its twelfth, 21.
const (
	calendarDaysPerMonth = 30
	calendarDaysPerYear  = 360
	businessDaysPerMonth = 21
	businessDaysPerYear  = 252
)

// On computes what a payer of a charge of amountCents with these terms
// owes on date: the one computation the API, the checkout, the dashboard
// and the PSP sandbox all use.
//
// The rules, in the order the Banco Central applies them (API Pix,
// CobVValor; Manual de Padrões para Iniciação do Pix, cobrança com
// vencimento):
//  1. Abatement reduces the charge whatever the date: its amount, or its
//     percent of the original amount. What is left is the base the other
//     percents apply to.
//  2. Discounts, for paying early. Fixed-date discounts: the one with the
//     earliest date on or after the payment date applies (a payment on the
//     date itself still gets it). Per day early: each calendar (or
//     business) day from the payment date to the due date earns the amount
//     or the percent of the base. A discount never brings the amount below
//     R$ 0,01.
//  3. The fine, once, for paying late: after the due date or, when the due
//     date is no business day, after the first business day following it
//     (a payment on that day is on time).
//  4. Interest, for each day late, counted from the due date itself:
//     calendar days, or business days after it up to the payment date;
//     percent rates per month and per year are pro rata by the day counts
//     above. Simple interest.
//
// Each part is rounded to the cent on its own, half up, from its exact
// value (never from a rounded daily rate), then summed.
func (t *Terms) On(amountCents int64, date calendar.Date) Breakdown {
	b := Breakdown{Date: date, AmountCents: amountCents, Payable: !date.After(t.LastPayableDay())}
	b.AbatementCents = min(t.Abatement.cents(amountCents, 1), amountCents-1)
	base := amountCents - b.AbatementCents
	due := t.Due()
	switch {
	case !date.After(due):
		b.DiscountCents = min(t.discount(base, date, due), base-1)
	case date.After(calendar.NextBusinessDay(due)):
		b.FineCents = t.Fine.cents(base, 1)
		b.InterestCents = t.interest(base, date, due)
	}
	b.AmountDueCents = base - b.DiscountCents + b.FineCents + b.InterestCents
	return b
}

// cents is the value's amount times n, or its percent of base times n.
func (v *Value) cents(base int64, n int) int64 {
	switch {
	case v == nil || n <= 0:
		return 0
	case v.AmountCents != nil:
		return *v.AmountCents * int64(n)
	case v.Percent != nil:
		return share(base, int64(*v.Percent)*int64(n), 1)
	}
	return 0
}

func (t *Terms) discount(base int64, date, due calendar.Date) int64 {
	d := t.Discounts
	switch {
	case d == nil:
		return 0
	case d.PerDayEarly != nil:
		days := date.DaysUntil(due)
		if d.BusinessDays != nil && *d.BusinessDays {
			days = calendar.BusinessDaysBetween(date, due)
		}
		return d.PerDayEarly.cents(base, days)
	}
	fixed := slices.Clone(d.Fixed)
	slices.SortFunc(fixed, func(a, b FixedDiscount) int { return compareDates(a.Until, b.Until) })
	for _, f := range fixed {
		if until, err := calendar.ParseDate(f.Until); err == nil && !date.After(until) {
			return (&Value{AmountCents: f.AmountCents, Percent: f.Percent}).cents(base, 1)
		}
	}
	return 0
}

// DiscountUntil is the last day the discount paid on date holds, when it
// is a fixed-date discount (fixed true); a discount per day early shrinks
// every day instead.
func (t *Terms) DiscountUntil(date calendar.Date) (until calendar.Date, fixed bool) {
	if t.Discounts == nil || len(t.Discounts.Fixed) == 0 {
		return calendar.Date{}, false
	}
	fixedDiscounts := slices.Clone(t.Discounts.Fixed)
	slices.SortFunc(fixedDiscounts, func(a, b FixedDiscount) int { return compareDates(a.Until, b.Until) })
	for _, f := range fixedDiscounts {
		if d, err := calendar.ParseDate(f.Until); err == nil && !date.After(d) {
			return d, true
		}
	}
	return calendar.Date{}, true
}

func compareDates(a, b string) int {
	da, _ := calendar.ParseDate(a)
	db, _ := calendar.ParseDate(b)
	return da.Compare(db)
}

func (t *Terms) interest(base int64, date, due calendar.Date) int64 {
	i := t.Interest
	if i == nil {
		return 0
	}
	days, perMonth, perYear := due.DaysUntil(date), int64(calendarDaysPerMonth), int64(calendarDaysPerYear)
	if i.BusinessDays {
		days, perMonth, perYear = calendar.BusinessDaysBetween(due, date), businessDaysPerMonth, businessDaysPerYear
	}
	n := int64(days)
	switch {
	case i.AmountCentsPerDay != nil:
		return *i.AmountCentsPerDay * n
	case i.PercentPerDay != nil:
		return share(base, int64(*i.PercentPerDay)*n, 1)
	case i.PercentPerMonth != nil:
		return share(base, int64(*i.PercentPerMonth)*n, perMonth)
	case i.PercentPerYear != nil:
		return share(base, int64(*i.PercentPerYear)*n, perYear)
	}
	return 0
}

// share is base × hundredths% / (10000 × per), rounded half up, computed
// exactly (big integers: a PSP's percent may have ten digits).
func share(base, hundredths, per int64) int64 {
	num := new(big.Int).Mul(big.NewInt(base), big.NewInt(hundredths))
	den := big.NewInt(10_000 * per)
	// floor((2·num + den) / (2·den)) rounds half up for num ≥ 0.
	num.Mul(num, big.NewInt(2)).Add(num, den)
	q := num.Quo(num, den.Mul(den, big.NewInt(2)))
	if !q.IsInt64() {
		return 1 << 62
	}
	return q.Int64()
}
