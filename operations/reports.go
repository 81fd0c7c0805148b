package operations

import (
	"context"

	"payments/store"
)

// reportRule is what action ("CreateReport", "ReadReport") needs for a
// report of type typ: reading what it holds (the Rulebook's
// "CreateReport:payments" ...). An unknown type is an InputError.
func reportRule(action, typ string) (Permission, error) {
	p, ok := Rulebook[action+":"+typ]
	if !ok {
		return "", &InputError{Param: "type", Message: "type must be one of payments, refunds, ledger, payouts."}
	}
	return p, nil
}

// ReadableReportTypes are the report types who may read, in order: a
// list of reports shows those only.
func ReadableReportTypes(who store.Actor) []string {
	var types []string
	for _, t := range store.ReportTypes {
		if p, err := reportRule("ReadReport", t); err == nil && Allow(who, p) == nil {
			types = append(types, t)
		}
	}
	return types
}

// CreateReport asks for a report of in (its account's time zone given by
// the caller), built in the background: pending, then ready with its file
// (report.ready) or failed (report.failed). Who asks needs to read what
// it holds; the request is in the audit trail, as every export of money's
// records should be.
func (o *Operations) CreateReport(ctx context.Context, who store.Actor, in store.NewReport) (r *store.Report, err error) {
	needs, err := reportRule("CreateReport", in.Type)
	if err != nil {
		return nil, err
	}
	err = o.record(ctx, who, in.Scope, needs, "report.created", func(ctx context.Context) (string, store.Changes, error) {
		if r, err = o.Store.CreateReport(ctx, in); err != nil {
			return "", nil, err
		}
		return r.ID, store.Changes{"type": {nil, r.Type}, "format": {nil, r.Format},
			"from": {nil, r.FromDate.Format("2006-01-02")}, "to": {nil, r.ToDate.Format("2006-01-02")}}, nil
	})
	return r, err
}

// ReadReport returns the scope's report id, to who may read what it holds.
func (o *Operations) ReadReport(ctx context.Context, who store.Actor, scope store.Scope, id string) (*store.Report, error) {
	r, err := o.Store.Report(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	needs, err := reportRule("ReadReport", r.Type)
	if err != nil {
		return nil, err
	}
	if err := Allow(who, needs); err != nil {
		return nil, err
	}
	return r, nil
}

// SetDailyReport turns the scope's daily reconciliation report on in
// format (the ledger of each day of the account's time zone) or off ("").
func (o *Operations) SetDailyReport(ctx context.Context, who store.Actor, scope store.Scope, format, zone string) error {
	return o.record(ctx, who, scope, rule("SetDailyReport"), "report_schedule.updated", func(ctx context.Context) (string, store.Changes, error) {
		if err := o.Store.SetReportSchedule(ctx, scope, format, zone); err != nil {
			return "", nil, err
		}
		return scope.AccountID, store.Changes{"daily_report": {nil, format}}, nil
	})
}
