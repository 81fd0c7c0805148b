package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"payments/pix"
	"payments/store"
	"payments/views"
)

// simulatedActions are the audit actions that, made by a person or a key
// in test mode, are simulations of what only the PSP does live.
var simulatedActions = []string{"payment.paid", "payment.expired", "payment.attempt_failed", "refund.succeeded", "refund.failed",
	"dispute.created", "dispute.closed", "withdrawal.completed", "withdrawal.failed"}

// actionLabel names what an audit row did, in the person's language; a
// test-mode simulation says so, and nothing live (or the PSP's, or the
// service's own) ever reads "simulação".
func actionLabel(ctx context.Context, r store.AuditRow) string {
	label := views.Label(ctx, "audit_action", r.Action)
	if !r.Livemode && r.Door != store.DoorPSP && r.Door != store.DoorSystem && slices.Contains(simulatedActions, r.Action) {
		return views.T(ctx, "audit.simulated", "Action", label)
	}
	return label
}

// changesInWords is what an audit row's change did, as people read it, in
// their language: "Situação: Pendente → Pago · Valor: R$ 100,00". Each
// field by its name, each value by what it is (a status of the object's
// kind, a role, an event, money, yes or no) or, when it is data (a URL, an
// id), as it is, marked so; a secret reads as changed, never shown.
func changesInWords(ctx context.Context, action string, raw json.RawMessage) []views.AuditChange {
	var changes map[string][]any
	if err := json.Unmarshal(raw, &changes); err != nil || len(changes) == 0 {
		return nil
	}
	kind, _, _ := strings.Cut(action, ".")
	fields := make([]string, 0, len(changes))
	for f := range changes {
		fields = append(fields, f)
	}
	// What happened first (its status), then the rest by name.
	slices.SortFunc(fields, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "status":
			return -1
		case b == "status":
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make([]views.AuditChange, 0, len(fields))
	for _, f := range fields {
		pair := changes[f]
		if len(pair) != 2 {
			continue
		}
		c := views.AuditChange{Field: fieldWords(ctx, f), Added: pair[0] == nil, Removed: pair[1] == nil}
		c.Before, c.BeforeData = valueWords(ctx, kind, f, pair[0])
		c.After, c.AfterData = valueWords(ctx, kind, f, pair[1])
		out = append(out, c)
	}
	return out
}

// fieldWords names a changed field: its audit name, else the page's, else
// itself with spaces.
func fieldWords(ctx context.Context, field string) string {
	for _, id := range []string{"audit_field." + field, "field." + field} {
		if s := views.T(ctx, id); s != id {
			return s
		}
	}
	return strings.ReplaceAll(field, "_", " ")
}

// valueWords is a changed value in words, or as it is when it is data (a
// URL, an id, a name someone typed: data says so).
func valueWords(ctx context.Context, kind, field string, v any) (text string, data bool) {
	switch v := v.(type) {
	case nil:
		return "—", false
	case bool:
		if v {
			return views.T(ctx, "audit.yes"), false
		}
		return views.T(ctx, "audit.no"), false
	case float64:
		if strings.HasSuffix(field, "_cents") {
			return pix.FormatBRL(int64(v)), false
		}
		return views.FormatInt(ctx, int64(v)), false
	case string:
		switch {
		case field == "contest_status":
			return views.Label(ctx, "status.contest", v), false
		case field == "status" || strings.HasSuffix(field, "_status"):
			return views.Label(ctx, "status."+kind, v), false
		case field == "role":
			return views.Label(ctx, "role", v), false
		case field == "mode":
			return views.Label(ctx, "mode", v), false
		case field == "stage":
			return views.Label(ctx, "dispute_stage", v), false
		case field == "reason" && (kind == "dispute" || kind == "withdrawal"):
			return views.Label(ctx, "dispute_reason", v), false
		case field == "events" || field == "event_type":
			return views.Label(ctx, "event", v), false
		case v == "(changed)" || v == "(set)":
			return views.T(ctx, "audit.secret_changed"), false
		}
		if s := views.T(ctx, "audit_value."+v); s != "audit_value."+v {
			return s, false
		}
		return v, true
	case []any:
		out := make([]string, len(v))
		data := false
		for i, item := range v {
			var d bool
			out[i], d = valueWords(ctx, kind, field, item)
			data = data || d
		}
		return strings.Join(out, ", "), data
	}
	return fmt.Sprint(v), true
}
