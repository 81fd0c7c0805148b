package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"payments/internal/spreadsheet"
	"payments/pix"
	"payments/store"
)

// csvSheet writes a table as CSV in one of two dialects:
//   - rfc4180 (the API's default): UTF-8, commas, a header of column keys,
//     times in ISO 8601 with the zone's offset, dates as YYYY-MM-DD, money
//     in reais with a point ("1234.56") beside its cents;
//   - excel_br (the dashboard's in pt-BR): what Excel set to Portuguese
//     (Brazil) opens as columns without an import wizard: a UTF-8 BOM (or
//     accents come out garbled), semicolons (the comma is the decimal
//     separator there), the columns' Portuguese titles, money with a
//     decimal comma and no thousands separator ("1234,56"), times as
//     dd/mm/aaaa hh:mm:ss and dates as dd/mm/aaaa in the report's zone, a
//     CPF or CNPJ formatted (000.000.000-00: Excel keeps it as text).
type csvSheet struct {
	w       *csv.Writer
	t       table
	zone    *time.Location
	excelBR bool
	line    []string
}

// utf8BOM tells Excel the file is UTF-8.
const utf8BOM = "\uFEFF"

func newCSV(w io.Writer, t table, zone *time.Location, dialect string) (*csvSheet, error) {
	c := &csvSheet{w: csv.NewWriter(w), t: t, zone: zone, excelBR: dialect == store.CSVExcelBR, line: make([]string, len(t.columns))}
	for i, col := range t.columns {
		c.line[i] = col.key
	}
	if c.excelBR {
		if _, err := io.WriteString(w, utf8BOM); err != nil {
			return nil, err
		}
		c.w.Comma = ';'
		c.w.UseCRLF = true
		for i, col := range t.columns {
			c.line[i] = col.title
		}
	}
	return c, c.w.Write(c.line)
}

func (c *csvSheet) row(cells []any) error {
	for i, col := range c.t.columns {
		c.line[i] = c.cell(col.kind, cells[i])
	}
	return c.w.Write(c.line)
}

func (c *csvSheet) close() error {
	c.w.Flush()
	return c.w.Error()
}

func (c *csvSheet) cell(k kind, v any) string {
	switch k {
	case integer:
		return strconv.FormatInt(v.(int64), 10)
	case money:
		if c.excelBR {
			return reaisWith(v.(int64), ',')
		}
		return reaisWith(v.(int64), '.')
	case instant:
		t := v.(*time.Time)
		switch {
		case t == nil:
			return ""
		case c.excelBR:
			return t.In(c.zone).Format("02/01/2006 15:04:05")
		}
		return t.In(c.zone).Format("2006-01-02T15:04:05.000Z07:00")
	case day:
		d := v.(*time.Time)
		switch {
		case d == nil:
			return ""
		case c.excelBR:
			return d.Format("02/01/2006")
		}
		return d.Format(time.DateOnly)
	}
	if k == document && c.excelBR {
		// Excel reads "01234567890" as a number and drops its zero: a CPF
		// or CNPJ goes formatted, as Brazilians write it, and stays text.
		return spreadsheet.Text(pix.FormatDocument(v.(string)))
	}
	// Text is anyone's words (a description, a payer's name): never a formula.
	return spreadsheet.Text(v.(string))
}

// reaisWith writes cents as reais with two decimals after point, exactly.
func reaisWith(cents int64, point byte) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d%c%02d", sign, cents/100, point, cents%100)
}
