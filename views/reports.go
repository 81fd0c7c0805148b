package views

import "net/url"

// ReportsPage is the dashboard's Relatórios: the form that asks for a
// report (filled from the list an "Exportar" came from), the reports asked
// for, newest first, and the daily reconciliation report's setting.
type ReportsPage struct {
	Nav    Nav
	Notice Notice
	Form   ReportForm
	Rows   []ReportRow
	// Pending: some report is still being built, so the list refreshes.
	Pending bool
	NextURL string
	// Daily is the daily report's format ("" when off); CanSchedule says
	// whether the person may change it (settings).
	Daily       string
	CanSchedule bool
	TimeZone    string
}

// ReportForm is a report asked for, as typed, with what is wrong with it.
type ReportForm struct {
	Type, Format, From, To string
	// CSVDialect is a CSV's dialect (store.CSVDialects): excel_br by
	// default in Portuguese, rfc4180 in English.
	CSVDialect string
	Error      string
	ErrorField string
}

// ReportRow is one report.
type ReportRow struct {
	ID, Type, Format, Status string
	// FormatLabel is the format in words, a CSV's dialect with it.
	FormatLabel       string
	Period, CreatedAt string
	Scheduled         bool
	// FileURL is the dashboard's download, while the file is kept.
	FileURL      string
	Expired      bool
	RowCount     string
	Size         string
	Failure      string
	ExpiresLabel string
}

// ReportTypes and ReportFormats are the form's choices, in order.
var (
	ReportTypes   = []string{"payments", "refunds", "ledger", "payouts"}
	ReportFormats = []string{"csv", "xlsx", "ofx"}
	CSVDialects   = []string{"excel_br", "rfc4180"}
)

// ExportURL is the Relatórios form filled for a list's type and days.
func ExportURL(reportType, from, to string) string {
	q := "/dashboard/reports?type=" + url.QueryEscape(reportType)
	if from != "" {
		q += "&from=" + url.QueryEscape(from)
	}
	if to != "" {
		q += "&to=" + url.QueryEscape(to)
	}
	return q + "#new-report"
}
