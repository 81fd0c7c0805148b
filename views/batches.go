package views

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
}
