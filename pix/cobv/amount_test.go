package cobv

import (
	"reflect"
	"testing"

	"payments/pix/apipix"
	"payments/pix/calendar"
)

func cents(n int64) *int64  { return &n }
func pct(s string) *Percent { p, err := ParsePercent(s); must(err); return &p }
func yes() *bool            { b := true; return &b }
func must(err error) {
	if err != nil {
		panic(err)
	}
}
func date(s string) calendar.Date { d, err := calendar.ParseDate(s); must(err); return d }

// Worked examples, one per modality, computed by hand in the comments.
func TestAmountOnDates(t *testing.T) {
	type row struct {
		date                                     string
		abatement, discount, fine, interest, due int64
		payable                                  bool
	}
	cases := []struct {
		name   string
		amount int64
		terms  Terms
		rows   []row
	}{{
		// Fixed-date percent discounts (desconto 2), percent fine (multa 2),
		// percent per month in calendar days (juros 3): R$ 1.000,00 due on
		// Tuesday 2026-03-10, payable 30 days after.
		name: "fixed dates, fine 2%, 1% a month", amount: 100000,
		terms: Terms{DueDate: "2026-03-10", DaysAfterDue: 30, Fine: &Value{Percent: pct("2.00")},
			Interest:  &Interest{PercentPerMonth: pct("1.00")},
			Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-10", Percent: pct("2.00")}, {Until: "2026-03-05", Percent: pct("5.00")}}}},
		rows: []row{
			{"2026-03-01", 0, 5000, 0, 0, 95000, true}, // 5% until the 5th
			{"2026-03-05", 0, 5000, 0, 0, 95000, true}, // the date itself still counts
			{"2026-03-06", 0, 2000, 0, 0, 98000, true}, // then 2% until the due date
			{"2026-03-10", 0, 2000, 0, 0, 98000, true},
			{"2026-03-11", 0, 0, 2000, 33, 102033, true},   // 1 day: 1000.00 × 1%/30 = 0.333 → 0.33
			{"2026-03-25", 0, 0, 2000, 500, 102500, true},  // 15 days: 5.00
			{"2026-04-09", 0, 0, 2000, 1000, 103000, true}, // day 30, the last payable
			{"2026-04-10", 0, 0, 2000, 1033, 103033, false},
		},
	}, {
		// Fixed abatement (abatimento 1), fixed fine (multa 1), an amount
		// per business day (juros 5), due on Carnaval Saturday 2026-02-14:
		// on time until Ash Wednesday the 18th; interest counts the business
		// days after the 14th (not Carnaval Monday and Tuesday).
		name: "due on Carnaval Saturday", amount: 50000,
		terms: Terms{DueDate: "2026-02-14", DaysAfterDue: 10, Abatement: &Value{AmountCents: cents(1000)},
			Fine: &Value{AmountCents: cents(500)}, Interest: &Interest{AmountCentsPerDay: cents(10), BusinessDays: true}},
		rows: []row{
			{"2026-02-13", 1000, 0, 0, 0, 49000, true},
			{"2026-02-16", 1000, 0, 0, 0, 49000, true},
			{"2026-02-18", 1000, 0, 0, 0, 49000, true},
			{"2026-02-19", 1000, 0, 500, 20, 49520, true}, // the 18th and 19th
			{"2026-02-21", 1000, 0, 500, 30, 49530, true}, // a Saturday counts no business day
			{"2026-02-24", 1000, 0, 500, 50, 49550, true}, // 18, 19, 20, 23, 24
			{"2026-02-25", 1000, 0, 500, 60, 49560, false},
		},
	}, {
		// Percent abatement (abatimento 2) and a percent per calendar day
		// early (desconto 5): base 200.00 - 1% = 198.00.
		name: "percent per day early", amount: 20000,
		terms: Terms{DueDate: "2026-06-30", Abatement: &Value{Percent: pct("1.00")},
			Discounts: &Discounts{PerDayEarly: &Value{Percent: pct("0.10")}}},
		rows: []row{
			{"2026-06-20", 200, 198, 0, 0, 19602, true}, // 10 days × 0.10% × 198.00
			{"2026-06-29", 200, 20, 0, 0, 19780, true},  // 19.8 → 20
			{"2026-06-30", 200, 0, 0, 0, 19800, true},
			{"2026-07-01", 200, 0, 0, 0, 19800, false}, // no fine, no interest, not payable
		},
	}, {
		// The same per business day (desconto 6): from Monday 2026-06-01,
		// 20 business days to the 30th (Corpus Christi, the 4th, is none).
		name: "percent per business day early", amount: 20000,
		terms: Terms{DueDate: "2026-06-30", Abatement: &Value{Percent: pct("1.00")},
			Discounts: &Discounts{PerDayEarly: &Value{Percent: pct("0.10")}, BusinessDays: yes()}},
		rows: []row{{"2026-06-01", 200, 396, 0, 0, 19404, true}},
	}, {
		// An amount per calendar day early (desconto 3), never below R$ 0,01.
		name: "amount per day early, capped", amount: 500,
		terms: Terms{DueDate: "2026-06-30", Discounts: &Discounts{PerDayEarly: &Value{AmountCents: cents(100)}}},
		rows:  []row{{"2026-06-28", 0, 200, 0, 0, 300, true}, {"2026-06-20", 0, 499, 0, 0, 1, true}},
	}, {
		// Fixed-date amounts (desconto 1) and an amount per business day
		// early (desconto 4).
		name: "fixed amounts", amount: 10000,
		terms: Terms{DueDate: "2026-07-15", Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-07-01", AmountCents: cents(700)}, {Until: "2026-07-10", AmountCents: cents(300)}}}},
		rows:  []row{{"2026-07-01", 0, 700, 0, 0, 9300, true}, {"2026-07-02", 0, 300, 0, 0, 9700, true}, {"2026-07-11", 0, 0, 0, 0, 10000, true}},
	}, {
		name: "amount per business day early", amount: 10000,
		terms: Terms{DueDate: "2026-07-15", Discounts: &Discounts{PerDayEarly: &Value{AmountCents: cents(10)}, BusinessDays: yes()}},
		rows:  []row{{"2026-07-10", 0, 30, 0, 0, 9970, true}}, // 13, 14, 15
	}, {
		// 12% a year over business days (juros 8) across New Year: the 31st
		// (Thursday) to Tuesday the 5th is 2 business days: 1000.00 × 12% ×
		// 2/252 = 0.952 → 0.95.
		name: "percent a year, business days", amount: 100000,
		terms: Terms{DueDate: "2026-12-31", DaysAfterDue: 60, Interest: &Interest{PercentPerYear: pct("12.00"), BusinessDays: true}},
		rows:  []row{{"2027-01-05", 0, 0, 0, 95, 100095, true}},
	}, {
		// 12% a year over calendar days (juros 4): 5 days × 12%/360 = 1.667 → 1.67.
		name: "percent a year, calendar days", amount: 100000,
		terms: Terms{DueDate: "2026-12-31", DaysAfterDue: 60, Interest: &Interest{PercentPerYear: pct("12.00")}},
		rows:  []row{{"2027-01-05", 0, 0, 0, 167, 100167, true}},
	}, {
		// Percent a day (juros 2), 0.03% for 3 days on 333.33 = 0.29999 →
		// 0.30; fine 2% = 6.6666 → 6.67.
		name: "percent a day", amount: 33333,
		terms: Terms{DueDate: "2026-05-04", DaysAfterDue: 5, Fine: &Value{Percent: pct("2.00")}, Interest: &Interest{PercentPerDay: pct("0.03")}},
		rows:  []row{{"2026-05-07", 0, 0, 667, 30, 34030, true}},
	}, {
		// Per day in business days (juros 6 and 7), due Friday 2026-05-29,
		// paid Wednesday 06-03: 3 business days (1, 2, 3).
		name: "percent a day, business days", amount: 10000,
		terms: Terms{DueDate: "2026-05-29", DaysAfterDue: 10, Interest: &Interest{PercentPerDay: pct("1.00"), BusinessDays: true}},
		rows:  []row{{"2026-06-03", 0, 0, 0, 300, 10300, true}},
	}, {
		name: "percent a month, business days", amount: 10000,
		terms: Terms{DueDate: "2026-05-29", DaysAfterDue: 10, Interest: &Interest{PercentPerMonth: pct("2.10"), BusinessDays: true}},
		rows:  []row{{"2026-06-03", 0, 0, 0, 30, 10030, true}}, // 100.00 × 2.1% × 3/21 = 0.30
	}, {
		// Half a cent rounds up: 0.50 × 1% = 0.005.
		name: "half up", amount: 50,
		terms: Terms{DueDate: "2026-05-04", DaysAfterDue: 1, Fine: &Value{Percent: pct("1.00")}},
		rows:  []row{{"2026-05-05", 0, 0, 1, 0, 51, true}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range c.rows {
				got := c.terms.On(c.amount, date(r.date))
				want := Breakdown{Date: date(r.date), AmountCents: c.amount, AbatementCents: r.abatement, DiscountCents: r.discount,
					FineCents: r.fine, InterestCents: r.interest, AmountDueCents: r.due, Payable: r.payable}
				if got != want {
					t.Errorf("%s: got %+v\nwant %+v", r.date, got, want)
				}
			}
		})
	}
}

func TestLastPayableDayNeverBeforeTheNextBusinessDay(t *testing.T) {
	terms := Terms{DueDate: "2026-04-03"} // Good Friday, 0 days after
	if got := terms.LastPayableDay().String(); got != "2026-04-06" {
		t.Fatalf("last payable day = %s, want Monday 2026-04-06", got)
	}
}

// Every modality goes to API Pix's CobVValor and back unchanged.
func TestValorRoundTrip(t *testing.T) {
	all := []Terms{
		{DueDate: "2026-03-10", DaysAfterDue: 5, Fine: &Value{AmountCents: cents(250)}, Abatement: &Value{Percent: pct("1.50")},
			Interest: &Interest{AmountCentsPerDay: cents(7)}, Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-01", AmountCents: cents(100)}}}},
		{DueDate: "2026-03-10", Fine: &Value{Percent: pct("2.00")}, Abatement: &Value{AmountCents: cents(3)},
			Interest: &Interest{PercentPerDay: pct("0.03"), BusinessDays: true}, Discounts: &Discounts{Fixed: []FixedDiscount{{Until: "2026-03-01", Percent: pct("5.00")}, {Until: "2026-03-05", Percent: pct("2.00")}}}},
		{DueDate: "2026-03-10", Interest: &Interest{PercentPerMonth: pct("1.00")}, Discounts: &Discounts{PerDayEarly: &Value{AmountCents: cents(5)}, BusinessDays: new(bool)}},
		{DueDate: "2026-03-10", Interest: &Interest{PercentPerMonth: pct("1.00"), BusinessDays: true}, Discounts: &Discounts{PerDayEarly: &Value{AmountCents: cents(5)}, BusinessDays: yes()}},
		{DueDate: "2026-03-10", Interest: &Interest{PercentPerYear: pct("12.00")}, Discounts: &Discounts{PerDayEarly: &Value{Percent: pct("0.10")}, BusinessDays: new(bool)}},
		{DueDate: "2026-03-10", Interest: &Interest{PercentPerYear: pct("12.00"), BusinessDays: true}, Discounts: &Discounts{PerDayEarly: &Value{Percent: pct("0.10")}, BusinessDays: yes()}},
		{DueDate: "2026-03-10", Interest: &Interest{AmountCentsPerDay: cents(1), BusinessDays: true}},
		{DueDate: "2026-03-10", Interest: &Interest{PercentPerDay: pct("0.03")}},
	}
	modalities := map[int]bool{}
	for _, terms := range all {
		v := terms.Valor(12345)
		for _, m := range []int{modalityOf(v.Juros), modalityOf(v.Multa) * 10, modalityOf(v.Abatimento) * 100} {
			modalities[m] = true
		}
		if v.Desconto != nil {
			modalities[v.Desconto.Modalidade*1000] = true
		}
		days := terms.DaysAfterDue
		back, amount, err := FromValor(calendarV(terms.DueDate, days), v)
		if err != nil || amount != 12345 {
			t.Fatalf("FromValor: %v, %d", err, amount)
		}
		if back.Discounts != nil && back.Discounts.BusinessDays == nil && terms.Discounts.BusinessDays != nil {
			t.Fatalf("business days lost")
		}
		if !reflect.DeepEqual(back, terms) {
			t.Errorf("round trip:\n got %+v\nwant %+v", back, terms)
		}
	}
	// Juros 1-8, multa 1-2, abatimento 1-2, desconto 1-6 all met.
	for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 100, 200, 1000, 2000, 3000, 4000, 5000, 6000} {
		if !modalities[m] {
			t.Errorf("modality %d not covered", m)
		}
	}
}

func modalityOf(m *apipix.ModalidadeValor) int {
	if m == nil {
		return 0
	}
	return m.Modalidade
}

func calendarV(due string, days int) apipix.CalendarioV {
	return apipix.CalendarioV{DataDeVencimento: due, ValidadeAposVencimento: &days}
}
