package views

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/go-pdf/fpdf"
)

// ReceiptPDF writes r as a one-page A4 PDF: the same lines as the page,
// in the core Helvetica font (PDF readers carry it, so the file embeds
// none and stays a few kB), its text translated to the font's Windows-1252,
// which holds every Portuguese letter. issued is when it was made.
func ReceiptPDF(ctx context.Context, r Receipt, issued time.Time) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetMargins(20, 20, 20)
	pdf.SetAutoPageBreak(true, 20)
	title := T(ctx, "receipt.title")
	pdf.SetTitle(title, true)
	pdf.SetAuthor(T(ctx, "app.name"), true)
	pdf.SetCreator(T(ctx, "app.name"), true)
	pdf.SetCreationDate(issued)
	pdf.SetLang(LocaleOf(ctx).Lang)
	tr := pdf.UnicodeTranslatorFromDescriptor("") // cp1252
	width, _ := pdf.GetPageSize()
	usable := width - 40

	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 16)
	pdf.CellFormat(usable, 9, tr(title), "", 1, "L", false, 0, "")
	if r.Test {
		pdf.SetFillColor(254, 243, 199) // amber, as the page's banner
		pdf.SetTextColor(120, 53, 15)
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(usable, 7, tr(T(ctx, "receipt.test")), "", 1, "L", true, 0, "")
		pdf.SetTextColor(0, 0, 0)
	}
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "B", 24)
	pdf.CellFormat(usable, 12, tr(r.AmountLabel), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.SetTextColor(71, 85, 105)
	pdf.CellFormat(usable, 6, tr(r.PaidAtLabel), "", 1, "L", false, 0, "")
	pdf.Ln(4)
	pdf.SetDrawColor(203, 213, 225)
	pdf.Line(20, pdf.GetY(), 20+usable, pdf.GetY())
	pdf.Ln(4)
	for _, l := range r.Lines {
		pdf.SetFont("Helvetica", "", 9)
		pdf.SetTextColor(71, 85, 105)
		pdf.CellFormat(usable, 5, tr(l.Label), "", 1, "L", false, 0, "")
		pdf.SetTextColor(15, 23, 42)
		if l.Mono {
			pdf.SetFont("Courier", "", 10)
		} else {
			pdf.SetFont("Helvetica", "", 11)
		}
		pdf.MultiCell(usable, 6, tr(l.Value), "", "L", false)
		pdf.Ln(2)
	}
	pdf.Ln(2)
	pdf.Line(20, pdf.GetY(), 20+usable, pdf.GetY())
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "", 8)
	pdf.SetTextColor(71, 85, 105)
	pdf.MultiCell(usable, 4, tr(T(ctx, "receipt.issued", "At", TimeSeconds(ctx, issued))), "", "L", false)
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("receipt pdf: %w", err)
	}
	return out.Bytes(), nil
}
