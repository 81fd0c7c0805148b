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
// kind, a role, money, yes or no); a secret reads as changed, never shown.
func changesInWords(ctx context.Context, action string, raw json.RawMessage) string {
	var changes map[string][]any
	if err := json.Unmarshal(raw, &changes); err != nil || len(changes) == 0 {
		return ""
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
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		pair := changes[f]
		if len(pair) != 2 {
			continue
		}
		name := fieldWords(ctx, f)
		before, after := valueWords(ctx, kind, f, pair[0]), valueWords(ctx, kind, f, pair[1])
		switch {
		case pair[0] == nil:
			parts = append(parts, name+": "+after)
		case pair[1] == nil:
			parts = append(parts, views.T(ctx, "audit.removed", "Field", name, "Before", before))
		default:
			parts = append(parts, name+": "+before+" → "+after)
		}
	}
	return strings.Join(parts, " · ")
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

func valueWords(ctx context.Context, kind, field string, v any) string {
	switch v := v.(type) {
	case nil:
		return "—"
	case bool:
		if v {
			return views.T(ctx, "audit.yes")
		}
		return views.T(ctx, "audit.no")
	case float64:
		if strings.HasSuffix(field, "_cents") {
			return pix.FormatBRL(int64(v))
		}
		return views.FormatInt(ctx, int64(v))
	case string:
		switch {
		case field == "status" || strings.HasSuffix(field, "_status"):
			return views.Label(ctx, "status."+kind, v)
		case field == "role":
			return views.Label(ctx, "role", v)
		case field == "mode":
			return views.Label(ctx, "mode", v)
		}
		return v
	case []any:
		out := make([]string, len(v))
		for i, item := range v {
			out[i] = valueWords(ctx, kind, field, item)
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprint(v)
}
