package views

import (
	"context"
	"strings"
)

// BatchesPage lists the batches of charges sent and takes a new CSV.
type BatchesPage struct {
	Nav       Nav
	Batches   []BatchRow
	Error     string
	CanCreate bool
	// Columns are the CSV's columns, named as the new-charge form's fields.
	Columns []string
}

// BatchRow is one batch in the list.
type BatchRow struct {
	ID, CreatedAt, Description string
	Items                      int
}

// BatchPage is one batch: each row's outcome.
type BatchPage struct {
	Nav                        Nav
	ID, CreatedAt, Description string
	// Statuses are an item's statuses in order, each with its Counts.
	Statuses []string
	Counts   map[string]int
	Items    []BatchItemRow
}

// BatchItemRow is one row of a batch: its line in the CSV, its status
// (created, registered, refused), its payment or why it has none.
type BatchItemRow struct {
	Row                                  int
	ExternalID, Status, PaymentID, Error string
	// ErrorCode and ErrorParam are the refusal's code and field: a page
	// says it in the reader's words. A row of a CSV sent from the
	// dashboard (RowInvalid) was already refused in its sender's words.
	ErrorCode, ErrorParam string
}

// RowInvalid is the code of a CSV row the dashboard refused.
const RowInvalid = "row_invalid"

// batchKindColumn is a CSV column naming a rule's kind, and its values.
type batchKindColumn struct{ Column, Values string }

// batchKindColumns are the kind columns and what each takes: the new
// charge form's choices.
func batchKindColumns() []batchKindColumn {
	values := func(choices []Choice) string {
		out := ""
		for i, c := range choices {
			if i > 0 {
				out += " | "
			}
			out += c.Value
		}
		return out
	}
	return []batchKindColumn{{"fine_kind", values(FineKinds)}, {"interest_kind", values(InterestKinds)},
		{"discount_kind", values(DiscountKinds)}, {"abatement_kind", values(AbatementKinds)}}
}

// FieldLabel names an API parameter of a batch's charge (payments[3].due_date:
// its index is the API's, not the file's line) in the page's words, by the
// field's name alone; one without words is shown as the API names it.
func FieldLabel(ctx context.Context, param string) string {
	if _, rest, ok := strings.Cut(param, "]."); ok && strings.HasPrefix(param, "payments[") {
		param = rest
	}
	if words := T(ctx, "param."+param); words != "param."+param {
		return words
	}
	return param
}
