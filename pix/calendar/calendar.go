// Package calendar is the Brazilian banking calendar a due-date charge
// (cobv) is computed on: civil dates in Brasília time, and business days,
// which are weekdays that are not national holidays.
//
// The holidays are rickar/cal's Brazilian list with the two the bank
// calendar adds to it: Carnaval Monday (the list has Tuesday only) and Dia
// Nacional de Zumbi e da Consciência Negra, a national holiday since 2024
// (Lei 14.759/2023). Sexta-feira Santa, Carnaval and Corpus Christi move
// with Easter; the rest are fixed.
package calendar

import (
	"fmt"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/br"
)

// Brasilia is the time zone due dates are in. Brazil has kept no daylight
// saving time since 2019, so a fixed offset is exact for every date a
// charge can have, and needs no time zone database on the machine.
var Brasilia = time.FixedZone("BRT", -3*60*60)

// Layout is how a date is written: ISO 8601, as API Pix writes it.
const Layout = time.DateOnly

var (
	carnavalMonday = &cal.Holiday{Name: "Carnaval (segunda-feira)", Type: cal.ObservancePublic, Offset: -48,
		Func: cal.CalcEasterOffset}
	conscienciaNegra = &cal.Holiday{Name: "Dia Nacional de Zumbi e da Consciência Negra", Type: cal.ObservancePublic,
		Month: time.November, Day: 20, Func: cal.CalcDayOfMonth, StartYear: 2024}
)

// bank is the business calendar: Monday to Friday, less the holidays.
var bank = func() *cal.BusinessCalendar {
	c := cal.NewBusinessCalendar()
	c.AddHoliday(br.Holidays...)
	c.AddHoliday(carnavalMonday, conscienciaNegra)
	return c
}()

// A Date is a civil date: midnight UTC of that day, so that adding days
// never meets a time zone. Make one with Of, ParseDate or Today.
type Date struct{ t time.Time }

// Of is the date year-month-day.
func Of(year int, month time.Month, day int) Date {
	return Date{time.Date(year, month, day, 0, 0, 0, 0, time.UTC)}
}

// ParseDate reads a YYYY-MM-DD date.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(Layout, s)
	if err != nil {
		return Date{}, fmt.Errorf("calendar: %q is not a YYYY-MM-DD date", s)
	}
	return Date{t}, nil
}

// Today is the date at the instant now in Brasília.
func Today(now time.Time) Date {
	y, m, d := now.In(Brasilia).Date()
	return Of(y, m, d)
}

// String is the date as YYYY-MM-DD.
func (d Date) String() string { return d.t.Format(Layout) }

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.t.IsZero() }

// AddDays is the date n days after d (before, when n is negative).
func (d Date) AddDays(n int) Date { return Date{d.t.AddDate(0, 0, n)} }

// AddMonths is the same day n months later; a month without that day
// gives its last day (31 January + 1 month is 28 or 29 February).
func (d Date) AddMonths(n int) Date {
	y, m, day := d.t.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return Of(first.Year(), first.Month(), min(day, last))
}

// Before, After and Equal compare dates.
func (d Date) Before(e Date) bool { return d.t.Before(e.t) }
func (d Date) After(e Date) bool  { return d.t.After(e.t) }
func (d Date) Equal(e Date) bool  { return d.t.Equal(e.t) }

// Compare is -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int { return d.t.Compare(e.t) }

// DaysUntil is how many days from d to e (negative when e is before d).
func (d Date) DaysUntil(e Date) int { return int(e.t.Sub(d.t).Hours() / 24) }

// Start is the instant the date begins in Brasília.
func (d Date) Start() time.Time {
	y, m, day := d.t.Date()
	return time.Date(y, m, day, 0, 0, 0, 0, Brasilia)
}

// Time is the date as midnight UTC (how a DATE column is written).
func (d Date) Time() time.Time { return d.t }

// FromTime is the date a DATE column read as t holds.
func FromTime(t time.Time) Date {
	y, m, day := t.Date()
	return Of(y, m, day)
}

// Weekday is the date's day of the week.
func (d Date) Weekday() time.Weekday { return d.t.Weekday() }

// Holiday names the national holiday on d, or "" when it is none.
func Holiday(d Date) string {
	if is, _, h := bank.IsHoliday(d.t); is {
		return h.Name
	}
	return ""
}

// IsBusinessDay reports whether banks open on d: a weekday that is no
// national holiday.
func IsBusinessDay(d Date) bool { return bank.IsWorkday(d.t) }

// NextBusinessDay is d when it is a business day, else the first one after it.
func NextBusinessDay(d Date) Date {
	for !IsBusinessDay(d) {
		d = d.AddDays(1)
	}
	return d
}

// BusinessDaysBetween counts the business days after a up to and including
// b: the business days a payment made on b is late when due on a (or
// early, the other way round). It is 0 when b is not after a.
func BusinessDaysBetween(a, b Date) int {
	n := 0
	for d := a.AddDays(1); !d.After(b); d = d.AddDays(1) {
		if IsBusinessDay(d) {
			n++
		}
	}
	return n
}
