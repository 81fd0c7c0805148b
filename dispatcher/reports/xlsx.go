package reports

import (
	"archive/zip"
	"fmt"
	"io"
	"time"

	"github.com/xuri/excelize/v2"
)

// xlsxSheet writes a table as a spreadsheet through excelize's stream
// writer: Portuguese titles, typed cells (numbers, dates), money in a
// "R$ #,##0.00" format and dates as "dd/mm/aaaa hh:mm:ss", shown with the
// reader's separators (a pt-BR Excel or LibreOffice: 1.234,56). Rows past
// excelize's memory chunk go to a temporary file, and the workbook's zip is
// written straight to w, so memory stays bounded whatever the rows.
type xlsxSheet struct {
	f      *excelize.File
	sw     *excelize.StreamWriter
	t      table
	zone   *time.Location
	w      io.Writer
	line   int
	styles map[kind]int
	cells  []any
}

// xlsxMaxRows is a worksheet's limit, its header included.
const xlsxMaxRows = 1_048_576

func newXLSX(w io.Writer, t table, zone *time.Location) (*xlsxSheet, error) {
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", t.sheet); err != nil {
		return nil, err
	}
	x := &xlsxSheet{f: f, t: t, zone: zone, w: w, line: 1, styles: map[kind]int{}, cells: make([]any, len(t.columns))}
	for k, format := range map[kind]string{money: `"R$" #,##0.00;-"R$" #,##0.00`, instant: "dd/mm/yyyy hh:mm:ss", day: "dd/mm/yyyy", integer: "0"} {
		style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &format})
		if err != nil {
			return nil, err
		}
		x.styles[k] = style
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return nil, err
	}
	if x.sw, err = f.NewStreamWriter(t.sheet); err != nil {
		return nil, err
	}
	for i, col := range t.columns {
		width := 16.0
		if col.kind == text || col.kind == document {
			width = 24
		}
		if err := x.sw.SetColWidth(i+1, i+1, width); err != nil {
			return nil, err
		}
	}
	if err := x.sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	header := make([]any, len(t.columns))
	for i, col := range t.columns {
		header[i] = excelize.Cell{StyleID: bold, Value: col.title}
	}
	return x, x.sw.SetRow("A1", header)
}

func (x *xlsxSheet) row(cells []any) error {
	if x.line >= xlsxMaxRows {
		return fmt.Errorf("%w: a spreadsheet holds %d rows at most; ask for fewer days or for CSV", errTooManyRows, xlsxMaxRows-1)
	}
	x.line++
	for i, col := range x.t.columns {
		switch col.kind {
		case money:
			x.cells[i] = excelize.Cell{StyleID: x.styles[money], Value: float64(cells[i].(int64)) / 100}
		case integer:
			x.cells[i] = excelize.Cell{StyleID: x.styles[integer], Value: cells[i].(int64)}
		case instant:
			x.cells[i] = nil
			if t := cells[i].(*time.Time); t != nil {
				// A spreadsheet's date has no zone: the wall clock of the
				// report's.
				local := t.In(x.zone)
				wall := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(),
					local.Nanosecond(), time.UTC)
				x.cells[i] = excelize.Cell{StyleID: x.styles[instant], Value: wall}
			}
		case day:
			x.cells[i] = nil
			if d := cells[i].(*time.Time); d != nil {
				x.cells[i] = excelize.Cell{StyleID: x.styles[day], Value: *d}
			}
		default:
			x.cells[i] = cells[i]
		}
	}
	cell, err := excelize.CoordinatesToCellName(1, x.line)
	if err != nil {
		return err
	}
	return x.sw.SetRow(cell, x.cells)
}

func (x *xlsxSheet) close() error {
	if err := x.sw.Flush(); err != nil {
		return err
	}
	// excelize's own writers gather the zip in memory first: this one
	// writes it to w as it goes (WriteToBuffer's buffer stays empty).
	x.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zip.NewWriter(x.w) })
	if _, err := x.f.WriteToBuffer(); err != nil {
		return err
	}
	return x.f.Close()
}
