package dashboard

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix/calendar"
	"payments/store"
	"payments/views"
)

// Reports handles GET /dashboard/reports: the form (filled from the
// query, as a list's "Exportar" links it), the account's reports newest
// first, and the daily report's setting.
func (d *Dashboard) Reports(c *fiber.Ctx) error {
	notice, err := d.takeNotice(c)
	if err != nil {
		return err
	}
	form := views.ReportForm{Type: c.Query("type", store.ReportPayments), Format: c.Query("format", store.FormatCSV),
		CSVDialect: c.Query("csv_dialect", defaultCSVDialect(c)), From: c.Query("from"), To: c.Query("to")}
	return d.renderReports(c, http.StatusOK, form, notice)
}

func (d *Dashboard) renderReports(c *fiber.Ctx, status int, form views.ReportForm, notice views.Notice) error {
	ctx := c.UserContext()
	scope := dashScope(c)
	now := d.Store.Now()
	today := now.In(views.LocaleOf(ctx).TZ).Format(time.DateOnly)
	form.From, form.To = cmp.Or(form.From, today), cmp.Or(form.To, today)
	p := store.IDListParams{Scope: scope, Limit: dashPageSize, StartingAfter: c.Query("starting_after")}
	if p.Status = c.Query("status"); p.Status != "" && !slices.Contains(store.ReportStatuses, p.Status) {
		return reply.InvalidParam("parameter_invalid", "status", "status must be one of %v.", store.ReportStatuses)
	}
	reports, more, err := d.Store.ListReports(ctx, p, operations.ReadableReportTypes(request.Actor(c)))
	if err != nil {
		return err
	}
	page := views.ReportsPage{Nav: d.nav(c, "reports"), Notice: notice, Form: form, CanSchedule: may(c, operations.Settings),
		TimeZone: views.LocaleOf(ctx).TZ.String()}
	for i := range reports {
		r := &reports[i]
		row := views.ReportRow{ID: r.ID, Type: r.Type, Format: r.Format, FormatLabel: t(c, "report_format."+r.Format), Status: r.Status, Scheduled: r.Scheduled,
			Period: reportPeriodLabel(c, r), CreatedAt: when(c, r.CreatedAt), Expired: r.Status == store.ReportReady && r.Expired(now)}
		if r.CSVDialect != nil {
			row.FormatLabel = t(c, "report_format.csv_"+*r.CSVDialect)
		}
		if r.Status == store.ReportReady && !row.Expired {
			row.FileURL = "/dashboard/reports/" + r.ID + "/file"
			row.RowCount = views.FormatInt(ctx, derefInt(r.RowCount))
			row.Size = byteSize(derefInt(r.SizeBytes))
			row.ExpiresLabel = when(c, *r.ExpiresAt)
		}
		if r.FailureReason != nil {
			row.Failure = *r.FailureReason
		}
		page.Pending = page.Pending || r.Status == store.ReportPending
		page.Rows = append(page.Rows, row)
	}
	if more {
		page.NextURL = "/dashboard/reports?starting_after=" + page.Rows[len(page.Rows)-1].ID
	}
	schedule, err := d.Store.ReportSchedule(ctx, scope)
	switch {
	case err == nil:
		page.Daily = schedule.Format
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	return reply.Page(c, status, views.Reports(page))
}

// reportPeriodLabel is the report's days, one or from–to, in the
// person's language.
func reportPeriodLabel(c *fiber.Ctx, r *store.Report) string {
	from, to := views.Day(civil(r.FromDate)), views.Day(civil(r.ToDate))
	if from == to {
		return from
	}
	return from + " – " + to
}

// defaultCSVDialect is the CSV a person reading the page opens best: Excel
// in Portuguese reads excel_br as columns, and rfc4180 is everyone else's.
func defaultCSVDialect(c *fiber.Ctx) string {
	if views.LocaleOf(c.UserContext()).Lang == views.LangEN {
		return store.CSVRFC4180
	}
	return store.CSVExcelBR
}

// CreateReport handles POST /dashboard/reports: the report asked for in
// the form, built in the background (the list shows it pending, then its
// file).
func (d *Dashboard) CreateReport(c *fiber.Ctx) error {
	form := views.ReportForm{Type: c.FormValue("type"), Format: c.FormValue("format"), CSVDialect: c.FormValue("csv_dialect", defaultCSVDialect(c)),
		From: c.FormValue("from"), To: c.FormValue("to")}
	asked := request.ReportAsked{Type: form.Type, Format: form.Format, From: form.From, To: form.To}
	if form.Format == store.FormatCSV {
		asked.CSVDialect = form.CSVDialect // the form always sends one; it is a CSV's only
	}
	scope := dashScope(c)
	zone := views.LocaleOf(c.UserContext()).TZ.String()
	in, apiErr := request.Report(asked, scope, zone, d.Store.Now())
	if apiErr != nil {
		form.Error, form.ErrorField = views.ErrorText(c.UserContext(), apiErr.Code), apiErr.Param
		return d.renderReports(c, http.StatusUnprocessableEntity, form, views.Notice{})
	}
	if _, err := d.Ops.CreateReport(c.UserContext(), request.Actor(c), in); err != nil {
		var denied *operations.PermissionError
		if errors.As(err, &denied) {
			form.Error = views.ErrorText(c.UserContext(), "permission_denied")
			return d.renderReports(c, http.StatusForbidden, form, views.Notice{})
		}
		return err
	}
	if err := d.setFlash(c, flashNotice, t(c, "reports.asked")); err != nil {
		return err
	}
	return c.Redirect("/dashboard/reports", http.StatusSeeOther)
}

// ReportFile handles GET /dashboard/reports/{id}/file: the file, to the
// signed-in people of the report's account who may read what it holds.
func (d *Dashboard) ReportFile(c *fiber.Ctx) error {
	id := pathParam(c, "id")
	r, err := d.Ops.ReadReport(c.UserContext(), request.Actor(c), dashScope(c), id)
	if err != nil {
		return reply.Report(err, id)
	}
	return reply.ReportFile(c, d.Store, r)
}

// SetDailyReport handles POST /dashboard/reports/daily: the daily
// reconciliation report on in a format, or off.
func (d *Dashboard) SetDailyReport(c *fiber.Ctx) error {
	format := c.FormValue("format")
	if format != "" && !slices.Contains(store.ReportFormats, format) {
		return reply.InvalidParam("parameter_invalid", "format", "format must be empty or one of %v.", store.ReportFormats)
	}
	zone := views.LocaleOf(c.UserContext()).TZ.String()
	if err := d.Ops.SetDailyReport(c.UserContext(), request.Actor(c), dashScope(c), format, zone); err != nil {
		return reply.Refusal(err)
	}
	notice := t(c, "reports.daily_saved_off")
	if format != "" {
		notice = t(c, "reports.daily_saved", "Format", t(c, "report_format."+format))
	}
	if err := d.setFlash(c, flashNotice, notice); err != nil {
		return err
	}
	return c.Redirect("/dashboard/reports", http.StatusSeeOther)
}

// civil is a report's day (midnight UTC) as a calendar date.
func civil(d time.Time) calendar.Date { return calendar.Of(d.Year(), d.Month(), d.Day()) }

func derefInt(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// byteSize is a file's size for people: bytes, kB or MB.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1_000_000)
}
