package views

// EventsPage is the dashboard's Eventos: every event of the account,
// newest first, each with its deliveries, filtered by type and by local
// days in the account's zone.
type EventsPage struct {
	Nav     Nav
	Types   []string
	Filter  EventsFilter
	Rows    []EventRow
	NextURL string
}

// EventsFilter is what the list is narrowed to: a type and local days.
type EventsFilter struct{ Type, Since, Until string }

// EventRow is one event and where its deliveries went.
type EventRow struct {
	ID, Type  string
	CreatedAt string
	// Object is the event's object id, linked when it has a page.
	Object, ObjectURL string
	Deliveries        []EventDelivery
	// Delivered and Failing count its deliveries that succeeded and those
	// that have not (yet); none means no webhook was subscribed.
	Delivered, Failing int
}
