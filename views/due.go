package views

import (
	"context"
	"strconv"
	"strings"

	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
)

// DueView is a due-date charge as a person reads it: its due date, the
// last day it can be paid, its terms in words, and what is owed today.
type DueView struct {
	DueDate     string
	LastPayable string
	Terms       []KV
	Today       []AmountLine
}

// PercentLabel is a percent the Brazilian way: 2,50%.
func PercentLabel(p cobv.Percent) string {
	return strconv.FormatInt(int64(p)/100, 10) + "," + strconv.FormatInt(int64(p)%100/10, 10) + strconv.FormatInt(int64(p)%10, 10) + "%"
}

// valueLabel is an amount or a percent.
func valueLabel(v *cobv.Value) string {
	if v.AmountCents != nil {
		return pix.FormatBRL(*v.AmountCents)
	}
	if v.Percent != nil {
		return PercentLabel(*v.Percent)
	}
	return ""
}

// DueTerms are a charge's terms in words, one line each.
func DueTerms(ctx context.Context, t *cobv.Terms) []KV {
	var out []KV
	days := T(ctx, "due.calendar_days")
	if t.Fine != nil {
		out = append(out, KV{T(ctx, "due.fine"), valueLabel(t.Fine)})
	}
	if i := t.Interest; i != nil {
		if i.BusinessDays {
			days = T(ctx, "due.business_days")
		}
		var rate string
		switch {
		case i.AmountCentsPerDay != nil:
			rate = T(ctx, "due.per_day", "Value", pix.FormatBRL(*i.AmountCentsPerDay))
		case i.PercentPerDay != nil:
			rate = T(ctx, "due.per_day", "Value", PercentLabel(*i.PercentPerDay))
		case i.PercentPerMonth != nil:
			rate = T(ctx, "due.per_month", "Value", PercentLabel(*i.PercentPerMonth))
		case i.PercentPerYear != nil:
			rate = T(ctx, "due.per_year", "Value", PercentLabel(*i.PercentPerYear))
		}
		out = append(out, KV{T(ctx, "due.interest"), rate + " (" + days + ")"})
	}
	if d := t.Discounts; d != nil {
		if d.PerDayEarly != nil {
			unit := T(ctx, "due.calendar_days")
			if d.BusinessDays != nil && *d.BusinessDays {
				unit = T(ctx, "due.business_days")
			}
			out = append(out, KV{T(ctx, "due.discount"), T(ctx, "due.per_day_early", "Value", valueLabel(d.PerDayEarly)) + " (" + unit + ")"})
		} else {
			var parts []string
			for _, f := range d.Fixed {
				until, _ := calendar.ParseDate(f.Until)
				parts = append(parts, T(ctx, "due.until", "Value", valueLabel(&cobv.Value{AmountCents: f.AmountCents, Percent: f.Percent}), "Date", Day(until)))
			}
			out = append(out, KV{T(ctx, "due.discount"), strings.Join(parts, "; ")})
		}
	}
	if t.Abatement != nil {
		out = append(out, KV{T(ctx, "due.abatement"), valueLabel(t.Abatement)})
	}
	return out
}

// AmountLines are what makes up a day's amount, part by part (none when it
// is the charge's amount alone).
func AmountLines(ctx context.Context, t *cobv.Terms, b cobv.Breakdown) []AmountLine {
	if b.AmountDueCents == b.AmountCents && b.AbatementCents == 0 {
		return nil
	}
	var lines []AmountLine
	line := func(label string, cents int64, sign, testID string) {
		if cents != 0 {
			lines = append(lines, AmountLine{Label: label, AmountLabel: sign + pix.FormatBRL(cents), TestID: testID})
		}
	}
	line(T(ctx, "checkout.original"), b.AmountCents, "", "amount-original")
	line(T(ctx, "checkout.abatement"), b.AbatementCents, "− ", "amount-abatement")
	if until, fixed := t.DiscountUntil(b.Date); fixed {
		line(T(ctx, "checkout.discount_until", "Date", Day(until)), b.DiscountCents, "− ", "amount-discount")
	} else {
		line(T(ctx, "checkout.discount_early"), b.DiscountCents, "− ", "amount-discount")
	}
	line(T(ctx, "checkout.fine"), b.FineCents, "+ ", "amount-fine")
	line(T(ctx, "checkout.interest_since", "Date", Day(t.Due())), b.InterestCents, "+ ", "amount-interest")
	line(T(ctx, "checkout.amount_today"), b.AmountDueCents, "", "amount-total")
	return lines
}
