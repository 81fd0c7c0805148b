package cobv

import (
	"fmt"

	"payments/pix/calendar"
)

// Limits of the terms the API accepts.
const (
	MaxDaysAfterDue = 3650
	MaxDiscounts    = 3
)

// A Problem is a rule the terms break: the parameter, as the API names it,
// and why.
type Problem struct {
	Param, Message string
}

func (p *Problem) Error() string { return p.Param + ": " + p.Message }

func problem(param, format string, args ...any) *Problem {
	return &Problem{Param: param, Message: fmt.Sprintf(format, args...)}
}

// Check enforces every rule API Pix states for a cobv's terms (the
// CobVOperacaoInvalida violations) and the API's own limits, for a charge
// of amountCents made on today, and returns the first one broken. The
// caller has parsed each rule's shape (one field of each kind).
func (t *Terms) Check(amountCents int64, today calendar.Date) *Problem {
	due, err := calendar.ParseDate(t.DueDate)
	switch {
	case err != nil:
		return problem("due_date", "due_date must be a date written YYYY-MM-DD.")
	case due.Before(today):
		return problem("due_date", "due_date must not be before today (%s, Brasília).", today)
	case t.DaysAfterDue < 0 || t.DaysAfterDue > MaxDaysAfterDue:
		return problem("days_after_due", "days_after_due must be between 0 and %d.", MaxDaysAfterDue)
	}
	if p := t.Fine.check("fine", amountCents, MaxPercent, false); p != nil {
		return p
	}
	if p := t.Abatement.check("abatement", amountCents, MaxPercent, true); p != nil {
		return p
	}
	if p := t.Interest.check(); p != nil {
		return p
	}
	return t.Discounts.check(amountCents, due)
}

// check checks a value named param: positive, and, when below is set (a
// deduction), less than the charge and less than 100%.
func (v *Value) check(param string, amountCents int64, maxPercent Percent, below bool) *Problem {
	switch {
	case v == nil:
		return nil
	case (v.AmountCents == nil) == (v.Percent == nil):
		return problem(param, "%s takes exactly one of amount_cents and percent.", param)
	case v.AmountCents != nil && *v.AmountCents < 1:
		return problem(param+".amount_cents", "%s.amount_cents must be at least 1.", param)
	case v.AmountCents != nil && below && *v.AmountCents >= amountCents:
		return problem(param+".amount_cents", "%s.amount_cents must be less than the charge's amount_cents.", param)
	case v.AmountCents != nil && *v.AmountCents > 100_000_000:
		return problem(param+".amount_cents", "%s.amount_cents must be at most 100000000.", param)
	case v.Percent != nil && *v.Percent < 1:
		return problem(param+".percent", "%s.percent must be at least 0.01.", param)
	case v.Percent != nil && below && *v.Percent >= MaxPercent:
		return problem(param+".percent", "%s.percent must be less than 100.00.", param)
	case v.Percent != nil && *v.Percent > maxPercent:
		return problem(param+".percent", "%s.percent must be at most %s.", param, maxPercent)
	}
	return nil
}

func (i *Interest) check() *Problem {
	if i == nil {
		return nil
	}
	set := 0
	for _, p := range []*Percent{i.PercentPerDay, i.PercentPerMonth, i.PercentPerYear} {
		if p != nil {
			set++
		}
	}
	if i.AmountCentsPerDay != nil {
		set++
	}
	if set != 1 {
		return problem("interest", "interest takes exactly one of amount_cents_per_day, percent_per_day, percent_per_month and percent_per_year.")
	}
	if i.AmountCentsPerDay != nil {
		return (&Value{AmountCents: i.AmountCentsPerDay}).check("interest", 0, MaxPercent, false).rename("interest.amount_cents", "interest.amount_cents_per_day")
	}
	for name, p := range map[string]*Percent{"percent_per_day": i.PercentPerDay, "percent_per_month": i.PercentPerMonth, "percent_per_year": i.PercentPerYear} {
		if p != nil && (*p < 1 || *p > MaxPercent) {
			return problem("interest."+name, "interest.%s must be between 0.01 and %s.", name, MaxPercent)
		}
	}
	return nil
}

// rename gives the problem of a field checked under another name its own.
func (p *Problem) rename(from, to string) *Problem {
	if p != nil && p.Param == from {
		p.Param = to
		p.Message = to + p.Message[len(from):]
	}
	return p
}

func (d *Discounts) check(amountCents int64, due calendar.Date) *Problem {
	switch {
	case d == nil:
		return nil
	case (len(d.Fixed) == 0) == (d.PerDayEarly == nil):
		return problem("discounts", "discounts takes exactly one of fixed (1 to %d dates) and per_day_early.", MaxDiscounts)
	case d.PerDayEarly != nil:
		return d.PerDayEarly.check("discounts.per_day_early", amountCents, MaxPercent, true)
	case d.BusinessDays != nil:
		return problem("discounts.business_days", "discounts.business_days goes with per_day_early only.")
	case len(d.Fixed) > MaxDiscounts:
		return problem("discounts.fixed", "discounts.fixed holds at most %d discounts.", MaxDiscounts)
	}
	seen := map[string]bool{}
	for i, f := range d.Fixed {
		param := fmt.Sprintf("discounts.fixed[%d]", i)
		until, err := calendar.ParseDate(f.Until)
		switch {
		case err != nil:
			return problem(param+".until", "%s.until must be a date written YYYY-MM-DD.", param)
		case until.After(due):
			return problem(param+".until", "%s.until must not be after due_date.", param)
		case seen[until.String()]:
			return problem(param+".until", "%s.until repeats another discount's date.", param)
		case (f.AmountCents != nil) != (d.Fixed[0].AmountCents != nil):
			return problem(param, "discounts.fixed are all amounts (amount_cents) or all percents (percent), as API Pix's modalities 1 and 2.")
		}
		seen[until.String()] = true
		if p := (&Value{AmountCents: f.AmountCents, Percent: f.Percent}).check(param, amountCents, MaxPercent, true); p != nil {
			return p
		}
	}
	return nil
}
