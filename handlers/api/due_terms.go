package api

import (
	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store"
)

// dueFields are a due-date charge's parameters beside due_date.
var dueFields = []string{"days_after_due", "fine", "interest", "discounts", "abatement"}

// parseDueTerms reads a due-date charge's terms from a create body (nil
// when it has no due_date) and checks them by API Pix's rules
// (operations.CheckDueTerms) for a charge of amount made today.
func parseDueTerms(o request.Object, amount int64, today calendar.Date) (*cobv.Terms, *reply.Error) {
	if !o.Present("due_date") {
		for _, f := range dueFields {
			if o.Present(f) {
				return nil, reply.InvalidParam("parameter_invalid", o.Param(f), "%s applies to due-date charges only: send due_date too.", o.Param(f))
			}
		}
		return nil, nil
	}
	if o.Present("expires_in") {
		return nil, reply.InvalidParam("parameter_invalid", o.Param("expires_in"),
			"A due-date charge expires after due_date and days_after_due: send due_date or expires_in, not both.")
	}
	t := &cobv.Terms{}
	var apiErr *reply.Error
	if t.DueDate, apiErr = o.Str("due_date", 10); apiErr != nil {
		return nil, apiErr
	}
	if o.Present("days_after_due") {
		outOfRange := func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", o.Param("days_after_due"), "days_after_due must be between 0 and %d.", cobv.MaxDaysAfterDue)
		}
		days, apiErr := o.IntegerBounded("days_after_due", 0, cobv.MaxDaysAfterDue, outOfRange, outOfRange)
		if apiErr != nil {
			return nil, apiErr
		}
		t.DaysAfterDue = int(days)
	}
	if t.Fine, apiErr = parseValue(o, "fine"); apiErr != nil {
		return nil, apiErr
	}
	if t.Abatement, apiErr = parseValue(o, "abatement"); apiErr != nil {
		return nil, apiErr
	}
	if t.Interest, apiErr = parseInterest(o); apiErr != nil {
		return nil, apiErr
	}
	if t.Discounts, apiErr = parseDiscounts(o); apiErr != nil {
		return nil, apiErr
	}
	if p := operations.CheckDueTerms(t, amount, today); p != nil {
		return nil, reply.InvalidParam("parameter_invalid", o.Param(p.Param), "%s", p.Message)
	}
	return t, nil
}

// parseValue reads {"amount_cents": N} or {"percent": "2.00"} under name.
func parseValue(o request.Object, name string) (*cobv.Value, *reply.Error) {
	if !o.Present(name) {
		return nil, nil
	}
	v, apiErr := o.Object(name)
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := v.RejectUnknown("amount_cents", "percent"); apiErr != nil {
		return nil, apiErr
	}
	out := &cobv.Value{}
	if out.AmountCents, apiErr = optionalCents(v, "amount_cents"); apiErr != nil {
		return nil, apiErr
	}
	if out.Percent, apiErr = optionalPercent(v, "percent"); apiErr != nil {
		return nil, apiErr
	}
	return out, nil
}

func optionalCents(o request.Object, name string) (*int64, *reply.Error) {
	if !o.Present(name) {
		return nil, nil
	}
	outOfRange := func() *reply.Error {
		return reply.InvalidParam("parameter_invalid", o.Param(name), "%s must be between 1 and %d.", o.Param(name), store.MaxAmountCents)
	}
	n, apiErr := o.IntegerBounded(name, 1, store.MaxAmountCents, outOfRange, outOfRange)
	if apiErr != nil {
		return nil, apiErr
	}
	return &n, nil
}

func optionalPercent(o request.Object, name string) (*cobv.Percent, *reply.Error) {
	if !o.Present(name) {
		return nil, nil
	}
	s, apiErr := o.Str(name, 16)
	if apiErr != nil {
		return nil, apiErr
	}
	p, err := cobv.ParsePercent(s)
	if err != nil {
		return nil, reply.InvalidParam("parameter_invalid", o.Param(name),
			"%s must be a percent with two decimals, written as a string like \"2.00\".", o.Param(name))
	}
	return &p, nil
}

var interestFields = []string{"amount_cents_per_day", "percent_per_day", "percent_per_month", "percent_per_year", "business_days"}

func parseInterest(o request.Object) (*cobv.Interest, *reply.Error) {
	if !o.Present("interest") {
		return nil, nil
	}
	v, apiErr := o.Object("interest")
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := v.RejectUnknown(interestFields...); apiErr != nil {
		return nil, apiErr
	}
	out := &cobv.Interest{}
	if out.AmountCentsPerDay, apiErr = optionalCents(v, "amount_cents_per_day"); apiErr != nil {
		return nil, apiErr
	}
	for name, dst := range map[string]**cobv.Percent{"percent_per_day": &out.PercentPerDay,
		"percent_per_month": &out.PercentPerMonth, "percent_per_year": &out.PercentPerYear} {
		if *dst, apiErr = optionalPercent(v, name); apiErr != nil {
			return nil, apiErr
		}
	}
	if v.Present("business_days") {
		if out.BusinessDays, apiErr = v.Bool("business_days"); apiErr != nil {
			return nil, apiErr
		}
	}
	return out, nil
}

func parseDiscounts(o request.Object) (*cobv.Discounts, *reply.Error) {
	if !o.Present("discounts") {
		return nil, nil
	}
	v, apiErr := o.Object("discounts")
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := v.RejectUnknown("fixed", "per_day_early", "business_days"); apiErr != nil {
		return nil, apiErr
	}
	out := &cobv.Discounts{}
	if v.Present("fixed") {
		items, apiErr := v.Array("fixed")
		if apiErr != nil {
			return nil, apiErr
		}
		if len(items) > cobv.MaxDiscounts || len(items) == 0 {
			return nil, reply.InvalidParam("parameter_invalid", v.Param("fixed"), "discounts.fixed holds 1 to %d discounts.", cobv.MaxDiscounts)
		}
		for _, item := range items {
			if apiErr := item.RejectUnknown("until", "amount_cents", "percent"); apiErr != nil {
				return nil, apiErr
			}
			if !item.Present("until") {
				return nil, item.Missing("until")
			}
			var f cobv.FixedDiscount
			if f.Until, apiErr = item.Str("until", 10); apiErr != nil {
				return nil, apiErr
			}
			if f.AmountCents, apiErr = optionalCents(item, "amount_cents"); apiErr != nil {
				return nil, apiErr
			}
			if f.Percent, apiErr = optionalPercent(item, "percent"); apiErr != nil {
				return nil, apiErr
			}
			out.Fixed = append(out.Fixed, f)
		}
	}
	if out.PerDayEarly, apiErr = parseValue(v, "per_day_early"); apiErr != nil {
		return nil, apiErr
	}
	if v.Present("business_days") {
		b, apiErr := v.Bool("business_days")
		if apiErr != nil {
			return nil, apiErr
		}
		out.BusinessDays = &b
	} else if out.PerDayEarly != nil {
		calendarDays := false
		out.BusinessDays = &calendarDays
	}
	return out, nil
}
