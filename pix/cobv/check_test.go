package cobv

import (
	"testing"
)

func TestCheckNamesTheField(t *testing.T) {
	today := date("2026-03-01")
	cases := []struct {
		terms Terms
		param string
	}{
		{Terms{DueDate: "2026-02-28"}, "due_date"},
		{Terms{DueDate: "2026-3-1"}, "due_date"},
		{Terms{DueDate: "2026-03-10", DaysAfterDue: -1}, "days_after_due"},
		{Terms{DueDate: "2026-03-10", Fine: &Value{}}, "fine"},
		{Terms{DueDate: "2026-03-10", Fine: &Value{AmountCents: cents(1), Percent: pct("1.00")}}, "fine"},
		{Terms{DueDate: "2026-03-10", Fine: &Value{Percent: pct("100.01")}}, "fine.percent"},
		{Terms{DueDate: "2026-03-10", Fine: &Value{AmountCents: cents(0)}}, "fine.amount_cents"},
		{Terms{DueDate: "2026-03-10", Abatement: &Value{AmountCents: cents(1000)}}, "abatement.amount_cents"},
		{Terms{DueDate: "2026-03-10", Abatement: &Value{Percent: pct("100.00")}}, "abatement.percent"},
		{Terms{DueDate: "2026-03-10", Interest: &Interest{}}, "interest"},
		{Terms{DueDate: "2026-03-10", Interest: &Interest{PercentPerDay: pct("1.00"), PercentPerMonth: pct("1.00")}}, "interest"},
		{Terms{DueDate: "2026-03-10", Interest: &Interest{AmountCentsPerDay: cents(0)}}, "interest.amount_cents_per_day"},
		{Terms{DueDate: "2026-03-10", Interest: &Interest{PercentPerMonth: pct("0.00")}}, "interest.percent_per_month"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{}}, "discounts"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{PerDayEarly: &Value{AmountCents: cents(1)}, Fixed: []FixedDiscount{{Until: "2026-03-01", AmountCents: cents(1)}}}}, "discounts"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-11", AmountCents: cents(1)}}}}, "discounts.fixed[0].until"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-01", AmountCents: cents(1)}, {Until: "2026-03-01", AmountCents: cents(2)}}}}, "discounts.fixed[1].until"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-01", AmountCents: cents(1)}, {Until: "2026-03-02", Percent: pct("2.00")}}}}, "discounts.fixed[1]"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-01", AmountCents: cents(1000)}}}}, "discounts.fixed[0].amount_cents"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{Fixed: make([]FixedDiscount, 4)}}, "discounts.fixed"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-01", AmountCents: cents(1)}}, BusinessDays: yes()}}, "discounts.business_days"},
		{Terms{DueDate: "2026-03-10", Discounts: &Discounts{PerDayEarly: &Value{Percent: pct("100.00")}}}, "discounts.per_day_early.percent"},
	}
	for _, c := range cases {
		p := c.terms.Check(1000, today)
		if p == nil || p.Param != c.param {
			t.Errorf("%+v: problem %v, want one naming %s", c.terms, p, c.param)
		}
	}
	ok := Terms{DueDate: "2026-03-01", DaysAfterDue: 30, Fine: &Value{Percent: pct("2.00")}, Interest: &Interest{PercentPerMonth: pct("1.00")},
		Abatement: &Value{AmountCents: cents(999)}, Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-01", Percent: pct("99.99")}}}}
	if p := ok.Check(1000, today); p != nil {
		t.Fatalf("valid terms refused: %v", p)
	}
}

func TestPercent(t *testing.T) {
	for _, bad := range []string{"2", "2.0", "2.000", ".50", "-1.00", "1,00", "12345678901.00"} {
		if _, err := ParsePercent(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	p, err := ParsePercent("0.05")
	if err != nil || p != 5 || p.String() != "0.05" {
		t.Fatalf("0.05 = %d %v", p, err)
	}
}
