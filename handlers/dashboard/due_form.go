package dashboard

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/operations"
	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store"
	"payments/views"
)

// formPercent reads a percent as people type it (2 / 2,5 / 2,50 / 2.50).
func formPercent(s string) (*cobv.Percent, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(s, ",", ".")), "%")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 {
		return nil, false
	}
	p, err := cobv.ParsePercent(whole + "." + frac + strings.Repeat("0", 2-len(frac)))
	return &p, err == nil
}

// formValue reads a value of kind: a percent ("percent...") or reais.
func formValue(kind, s string) (*cobv.Value, bool) {
	if strings.Contains(kind, "percent") {
		p, ok := formPercent(s)
		return &cobv.Value{Percent: p}, ok
	}
	cents, ok := pix.ParseBRL(s)
	return &cobv.Value{AmountCents: &cents}, ok
}

// readDueTerms builds the terms the form asks for (nil without a due
// date) by the API's rules (cobv.Terms.Check), putting each problem
// beside its field in the person's words.
func readDueTerms(c *fiber.Ctx, f *views.PaymentForm, amountCents int64, today calendar.Date) *cobv.Terms {
	if f.DueDate == "" {
		return nil
	}
	terms := &cobv.Terms{DueDate: f.DueDate}
	if f.DaysAfterDue != "" {
		n, err := strconv.Atoi(f.DaysAfterDue)
		if err != nil {
			f.Errors["days_after_due"] = t(c, "due.error.days_after_due")
		}
		terms.DaysAfterDue = n
	}
	bad := func(field string) { f.Errors[field] = t(c, "due.error."+field) }
	if f.FineKind != "" {
		if v, ok := formValue(f.FineKind, f.FineValue); ok {
			terms.Fine = v
		} else {
			bad("fine")
		}
	}
	if f.AbatementKind != "" {
		if v, ok := formValue(f.AbatementKind, f.AbatementValue); ok {
			terms.Abatement = v
		} else {
			bad("abatement")
		}
	}
	if f.InterestKind != "" {
		v, ok := formValue(f.InterestKind, f.InterestValue)
		i := &cobv.Interest{BusinessDays: f.InterestBusiness}
		switch f.InterestKind {
		case "amount_per_day":
			i.AmountCentsPerDay = v.AmountCents
		case "percent_per_day":
			i.PercentPerDay = v.Percent
		case "percent_per_month":
			i.PercentPerMonth = v.Percent
		case "percent_per_year":
			i.PercentPerYear = v.Percent
		default:
			ok = false
		}
		if ok {
			terms.Interest = i
		} else {
			bad("interest")
		}
	}
	if f.DiscountKind != "" {
		v, ok := formValue(f.DiscountKind, f.DiscountValue)
		switch {
		case !ok:
			bad("discount")
		case strings.HasPrefix(f.DiscountKind, "per_day"):
			business := f.DiscountBusiness
			terms.Discounts = &cobv.Discounts{PerDayEarly: v, BusinessDays: &business}
		default:
			until := f.DiscountUntil
			if until == "" {
				until = f.DueDate
			}
			terms.Discounts = &cobv.Discounts{Fixed: []cobv.FixedDiscount{{Until: until, AmountCents: v.AmountCents, Percent: v.Percent}}}
		}
	}
	if len(f.Errors) > 0 {
		return nil
	}
	if p := operations.CheckDueTerms(terms, max(amountCents, 1), today); p != nil {
		field, _, _ := strings.Cut(p.Param, ".")
		field, _, _ = strings.Cut(field, "[")
		if field == "discounts" {
			field = "discount"
		}
		bad(field)
		if p.Param == "fine" || p.Param == "interest" {
			// The worst case: what the last payable day would owe.
			last := terms.LastPayableDay()
			f.Errors[field] = t(c, "due.error.too_much", "Day", views.Day(last),
				"Amount", pix.FormatBRL(terms.On(max(amountCents, 1), last).AmountDueCents), "Max", pix.FormatBRL(store.MaxAmountCents))
		}
		return nil
	}
	return terms
}

// PreviewPayment handles POST /dashboard/payments/preview: what the payer
// of the charge the form describes would owe on the days that matter
// (and on the one chosen), computed as the checkout and the payer's bank
// compute it. htmx swaps the table in; without scripts the whole form
// comes back with it.
func (d *Dashboard) PreviewPayment(c *fiber.Ctx) error {
	form := d.paymentForm(c)
	today := calendar.Today(d.Store.Now())
	cents, _ := pix.ParseBRL(form.Amount)
	if terms := readDueTerms(c, &form, cents, today); terms != nil && cents > 0 {
		form.Preview = duePreview(c, terms, cents, today, form.PreviewDate)
		form.Warnings = consumerWarnings(c, form.CustomerDoc, terms, cents)
	}
	if c.Get("HX-Request") == "true" {
		c.Set("Vary", "HX-Request")
		return reply.Page(c, http.StatusOK, views.DuePreviewTable(form))
	}
	return reply.Page(c, http.StatusOK, views.PaymentNew(form))
}

// consumerWarnings says, in words, what terms charge a consumer (a payer
// whose document is a CPF) beyond the Código de Defesa do Consumidor's
// limits (operations.ConsumerWarnings): a fine above 2%, interest above 1%
// a month.
func consumerWarnings(c *fiber.Ctx, document string, terms *cobv.Terms, cents int64) []string {
	if digits, ok := pix.CompactDocument(document); !ok || len(digits) != 11 {
		return nil
	}
	var out []string
	for _, term := range operations.ConsumerWarnings(terms, cents) {
		out = append(out, t(c, "due.consumer_"+term))
	}
	return out
}

// duePreview is the amount owed on the days that matter: today, a few
// before the due date, the due date, the first day late, some days later,
// the last payable day and the day after, and the chosen one.
func duePreview(c *fiber.Ctx, terms *cobv.Terms, cents int64, today calendar.Date, chosen string) []views.PreviewRow {
	due, last := terms.Due(), terms.LastPayableDay()
	late := calendar.NextBusinessDay(due).AddDays(1)
	days := []calendar.Date{today, due.AddDays(-5), due.AddDays(-1), due, late, late.AddDays(9), last, last.AddDays(1)}
	if d, err := calendar.ParseDate(chosen); err == nil {
		days = append(days, d)
	}
	seen := map[string]bool{}
	var rows []views.PreviewRow
	for _, day := range days {
		if day.Before(today) || seen[day.String()] {
			continue
		}
		seen[day.String()] = true
		b := terms.On(cents, day)
		row := views.PreviewRow{Date: day.String(), DateLabel: views.Day(day), AmountLabel: pix.FormatBRL(b.AmountDueCents), Payable: b.Payable}
		switch {
		case b.DiscountCents > 0:
			row.Note = t(c, "preview.discount", "Amount", pix.FormatBRL(b.DiscountCents))
		case b.FineCents+b.InterestCents > 0:
			row.Note = t(c, "preview.late", "Fine", pix.FormatBRL(b.FineCents), "Interest", pix.FormatBRL(b.InterestCents))
		}
		if weekend := day.Weekday() == 0 || day.Weekday() == 6; weekend || calendar.Holiday(day) != "" {
			row.Closed = calendar.Holiday(day)
			if row.Closed == "" {
				row.Closed = t(c, "preview.weekend")
			}
		}
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b views.PreviewRow) int { return strings.Compare(a.Date, b.Date) })
	return rows
}
