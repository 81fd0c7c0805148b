package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"payments/internal/spreadsheet"
)

// csvSheet writes a table as CSV: UTF-8, a header of column keys, times in
// ISO 8601 with the zone's offset, money in reais with a point
// ("1234.56"), beside its cents.
type csvSheet struct {
	w    *csv.Writer
	t    table
	zone *time.Location
	line []string
}

func newCSV(w io.Writer, t table, zone *time.Location) (*csvSheet, error) {
	c := &csvSheet{w: csv.NewWriter(w), t: t, zone: zone, line: make([]string, len(t.columns))}
	for i, col := range t.columns {
		c.line[i] = col.key
	}
	return c, c.w.Write(c.line)
}

func (c *csvSheet) row(cells []any) error {
	for i, col := range c.t.columns {
		c.line[i] = csvCell(col.kind, cells[i], c.zone)
	}
	return c.w.Write(c.line)
}

func (c *csvSheet) close() error {
	c.w.Flush()
	return c.w.Error()
}

func csvCell(k kind, v any, zone *time.Location) string {
	switch k {
	case integer:
		return strconv.FormatInt(v.(int64), 10)
	case money:
		return reais(v.(int64))
	case instant:
		if t := v.(*time.Time); t != nil {
			return t.In(zone).Format("2006-01-02T15:04:05.000Z07:00")
		}
		return ""
	}
	// Text is anyone's words (a description, a payer's name): never a formula.
	return spreadsheet.Text(v.(string))
}

// reais writes cents as reais with a point and two decimals, exactly.
func reais(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}
