// Package cobv is the due-date charge (API Pix's cobrança com vencimento):
// its terms (due date, days it stays payable after, fine, interest,
// discounts and abatement) in the API's own shape, the one function that
// computes what a payer owes on a date (Terms.On), the rules a charge's
// terms must follow (Terms.Check), and their translation to and from API
// Pix's CobVValor.
package cobv

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"payments/pix/calendar"
)

// Percent is a percentage with two decimals, held in hundredths of a
// percent: "2.00" is 200. It is written as that string, as API Pix writes
// it, so that no float ever touches it.
type Percent int64

// MaxPercent bounds every percent the API accepts: 100.00.
const MaxPercent Percent = 100_00

// ErrPercent is a percent not written as digits, a point and two digits.
var ErrPercent = errors.New("a percent is written as digits, a point and two digits, like \"2.00\"")

// ParsePercent reads "2.50" as 250; up to ten digits before the point.
func ParsePercent(s string) (Percent, error) {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || whole == "" || len(whole) > 10 || len(frac) != 2 || !digits(whole) || !digits(frac) {
		return 0, ErrPercent
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	return Percent(w*100 + f), nil
}

// String writes the percent as "2.50".
func (p Percent) String() string {
	return strconv.FormatInt(int64(p)/100, 10) + "." + fmt.Sprintf("%02d", int64(p)%100)
}

// MarshalJSON writes the percent as its string.
func (p Percent) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// UnmarshalJSON reads the percent from its string.
func (p *Percent) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return ErrPercent
	}
	v, err := ParsePercent(s)
	*p = v
	return err
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Value is an amount in cents or a percent of the charge: exactly one is set.
// It is a fine (multa modalities 1 and 2), an abatement (abatimento 1 and
// 2) or a discount per day early (desconto 3 to 6, with Discounts.BusinessDays).
type Value struct {
	AmountCents *int64   `json:"amount_cents,omitempty"`
	Percent     *Percent `json:"percent,omitempty"`
}

// Interest is what each day late adds (juros modalities 1 to 8): exactly
// one rate is set; BusinessDays counts business days instead of calendar days.
type Interest struct {
	AmountCentsPerDay *int64   `json:"amount_cents_per_day,omitempty"`
	PercentPerDay     *Percent `json:"percent_per_day,omitempty"`
	PercentPerMonth   *Percent `json:"percent_per_month,omitempty"`
	PercentPerYear    *Percent `json:"percent_per_year,omitempty"`
	BusinessDays      bool     `json:"business_days"`
}

// FixedDiscount is a discount for paying on or before Until (desconto
// modalities 1 and 2): an amount or a percent.
type FixedDiscount struct {
	Until       string   `json:"until"`
	AmountCents *int64   `json:"amount_cents,omitempty"`
	Percent     *Percent `json:"percent,omitempty"`
}

// Discounts are either up to three fixed-date discounts or a discount per
// day paid before the due date (calendar or business days).
type Discounts struct {
	Fixed        []FixedDiscount `json:"fixed,omitempty"`
	PerDayEarly  *Value          `json:"per_day_early,omitempty"`
	BusinessDays *bool           `json:"business_days,omitempty"`
}

// Terms are a due-date charge's terms, as the API takes and shows them.
type Terms struct {
	DueDate      string     `json:"due_date"`
	DaysAfterDue int        `json:"days_after_due"`
	Fine         *Value     `json:"fine"`
	Interest     *Interest  `json:"interest"`
	Discounts    *Discounts `json:"discounts"`
	Abatement    *Value     `json:"abatement"`
}

// Due is the due date (Terms are checked: it parses).
func (t *Terms) Due() calendar.Date {
	d, _ := calendar.ParseDate(t.DueDate)
	return d
}

// LastPayableDay is the last date the charge can be paid: days_after_due
// calendar days after the due date (validadeAposVencimento), and never
// before the first business day on or after the due date, on which a
// payment is still on time.
func (t *Terms) LastPayableDay() calendar.Date {
	due := t.Due()
	last := due.AddDays(t.DaysAfterDue)
	if onTime := calendar.NextBusinessDay(due); onTime.After(last) {
		return onTime
	}
	return last
}
