package calendar

import (
	"testing"
	"time"
)

// The national bank holidays of 2025 to 2030, as FEBRABAN publishes them
// (Easter: 2025-04-20, 2026-04-05, 2027-03-28, 2028-04-16, 2029-04-01,
// 2030-04-21).
var holidays = map[int][]string{
	2025: {"01-01", "03-03", "03-04", "04-18", "04-21", "05-01", "06-19", "09-07", "10-12", "11-02", "11-15", "11-20", "12-25"},
	2026: {"01-01", "02-16", "02-17", "04-03", "04-21", "05-01", "06-04", "09-07", "10-12", "11-02", "11-15", "11-20", "12-25"},
	2027: {"01-01", "02-08", "02-09", "03-26", "04-21", "05-01", "05-27", "09-07", "10-12", "11-02", "11-15", "11-20", "12-25"},
	2028: {"01-01", "02-28", "02-29", "04-14", "04-21", "05-01", "06-15", "09-07", "10-12", "11-02", "11-15", "11-20", "12-25"},
	2029: {"01-01", "02-12", "02-13", "03-30", "04-21", "05-01", "05-31", "09-07", "10-12", "11-02", "11-15", "11-20", "12-25"},
	2030: {"01-01", "03-04", "03-05", "04-19", "04-21", "05-01", "06-20", "09-07", "10-12", "11-02", "11-15", "11-20", "12-25"},
}

func TestHolidaysOf2025To2030(t *testing.T) {
	for year, days := range holidays {
		want := map[string]bool{}
		for _, md := range days {
			want[time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006")+"-"+md] = true
		}
		for d := Of(year, 1, 1); d.t.Year() == year; d = d.AddDays(1) {
			if got := Holiday(d) != ""; got != want[d.String()] {
				t.Errorf("%s (%s): holiday = %v (%q), want %v", d, d.Weekday(), got, Holiday(d), want[d.String()])
			}
			weekday := d.Weekday() != time.Saturday && d.Weekday() != time.Sunday
			if got := IsBusinessDay(d); got != (weekday && !want[d.String()]) {
				t.Errorf("%s: business day = %v", d, got)
			}
		}
	}
}

func TestConscienciaNegraOnlySince2024(t *testing.T) {
	if Holiday(Of(2023, 11, 20)) != "" || Holiday(Of(2024, 11, 20)) == "" {
		t.Fatal("20 November is a national holiday from 2024 only")
	}
}

func TestNextBusinessDayAndCounts(t *testing.T) {
	cases := []struct {
		from, want string
	}{
		{"2026-02-13", "2026-02-13"}, // Friday before Carnaval
		{"2026-02-14", "2026-02-18"}, // Saturday -> Ash Wednesday
		{"2026-04-03", "2026-04-06"}, // Good Friday -> Monday
		{"2025-12-25", "2025-12-26"},
		{"2026-11-20", "2026-11-23"}, // Consciência Negra (Friday) -> Monday
	}
	for _, c := range cases {
		from, _ := ParseDate(c.from)
		if got := NextBusinessDay(from).String(); got != c.want {
			t.Errorf("NextBusinessDay(%s) = %s, want %s", c.from, got, c.want)
		}
	}
	a, _ := ParseDate("2026-02-13")
	b, _ := ParseDate("2026-02-20")
	if n := BusinessDaysBetween(a, b); n != 3 { // 18, 19, 20
		t.Errorf("business days after 2026-02-13 to 2026-02-20 = %d, want 3", n)
	}
	if n := BusinessDaysBetween(b, a); n != 0 {
		t.Errorf("backwards = %d, want 0", n)
	}
	if n := a.DaysUntil(b); n != 7 {
		t.Errorf("DaysUntil = %d", n)
	}
}

func TestTodayIsBrasilia(t *testing.T) {
	// 02:59 UTC on the 2nd is still 23:59 of the 1st in Brasília.
	if got := Today(time.Date(2026, 3, 2, 2, 59, 0, 0, time.UTC)).String(); got != "2026-03-01" {
		t.Fatalf("Today = %s", got)
	}
	if got := Of(2026, 3, 1).Start().UTC(); !got.Equal(time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)) {
		t.Fatalf("Start = %s", got)
	}
}
