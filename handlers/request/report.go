package request

import (
	"slices"
	"time"

	"payments/handlers/reply"
	"payments/store"
)

// ReportAsked is what a report is asked for with, as the API's body and
// the dashboard's form give it: type, format, a CSV's dialect (the API's
// default rfc4180 when empty), and the days from and to (YYYY-MM-DD, both
// included) in the account's time zone.
type ReportAsked struct {
	Type, Format, CSVDialect, From, To string
}

// Report checks a report asked for scope, whose account's time zone is
// zone, at now: a known type and format (OFX is the ledger's only), two
// dates in order, at most store.MaxReportDays apart, none after today
// there.
func Report(a ReportAsked, scope store.Scope, zone string, now time.Time) (store.NewReport, *reply.Error) {
	in := store.NewReport{Scope: scope, Type: a.Type, Format: a.Format, CSVDialect: a.CSVDialect, TimeZone: zone}
	switch {
	case a.Type == "":
		return in, reply.InvalidParam("parameter_missing", "type", "type is required: one of %v.", store.ReportTypes)
	case !slices.Contains(store.ReportTypes, a.Type):
		return in, reply.InvalidParam("parameter_invalid", "type", "type must be one of %v.", store.ReportTypes)
	case a.Format == "":
		return in, reply.InvalidParam("parameter_missing", "format", "format is required: one of %v.", store.ReportFormats)
	case !slices.Contains(store.ReportFormats, a.Format):
		return in, reply.InvalidParam("parameter_invalid", "format", "format must be one of %v.", store.ReportFormats)
	case a.Format == store.FormatOFX && a.Type != store.ReportLedger:
		return in, reply.InvalidParam("format_unsupported", "format", "OFX is a bank statement: only the ledger report has it. Use csv or xlsx for %s.", a.Type)
	case a.CSVDialect != "" && !slices.Contains(store.CSVDialects, a.CSVDialect):
		return in, reply.InvalidParam("parameter_invalid", "csv_dialect", "csv_dialect must be one of %v.", store.CSVDialects)
	case a.CSVDialect != "" && a.Format != store.FormatCSV:
		return in, reply.InvalidParam("parameter_invalid", "csv_dialect", "csv_dialect is a CSV's: leave it out for %s.", a.Format)
	}
	var apiErr *reply.Error
	if in.From, apiErr = reportDate("from", a.From); apiErr != nil {
		return in, apiErr
	}
	if in.To, apiErr = reportDate("to", a.To); apiErr != nil {
		return in, apiErr
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	switch {
	case in.To.Before(in.From):
		return in, reply.InvalidParam("date_range_invalid", "to", "to (%s) must be on or after from (%s).", a.To, a.From)
	case in.To.After(today):
		return in, reply.InvalidParam("date_in_future", "to", "to (%s) is after today (%s) in the account's time zone (%s).",
			a.To, today.Format(time.DateOnly), zone)
	case in.To.Sub(in.From) >= store.MaxReportDays*24*time.Hour:
		return in, reply.InvalidParam("date_range_too_long", "to", "A report covers at most %d days: ask for several.", store.MaxReportDays)
	}
	return in, nil
}

func reportDate(param, s string) (time.Time, *reply.Error) {
	if s == "" {
		return time.Time{}, reply.InvalidParam("parameter_missing", param, "%s is required: a date (YYYY-MM-DD) in the account's time zone.", param)
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil || d.Year() < 2000 {
		return time.Time{}, reply.InvalidParam("parameter_invalid", param, "%s must be a date (YYYY-MM-DD) in the account's time zone.", param)
	}
	return d, nil
}
