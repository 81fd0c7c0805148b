package views

// AuditPage is the account's audit trail: who did what, through which
// door, from where, and what changed; filtered and paged.
type AuditPage struct {
	Nav     Nav
	Rows    []AuditView
	Actors  []Option
	Actions []string
	Filter  AuditFilterForm
	// NextURL pages on (""; none); CSVURL exports what the filter holds.
	NextURL, CSVURL string
}

// AuditFilterForm is the filter as typed.
type AuditFilterForm struct {
	Actor, Action, Object, Since, Until string
}

// Option is a choice of a select.
type Option struct {
	Value, Label string
}

// AuditView is one audit row as the page shows it.
type AuditView struct {
	At, Action, ObjectID, Actor, Door, IP, UserAgent, RequestID string
	// ActionLabel names what it did in the person's language (a test-mode
	// simulation says so); Changes say what changed, in words.
	ActionLabel string
	Changes     []AuditChange
	Livemode    bool
}

// AuditChange is one field a change set: its name and its values in words,
// or as they are where they are data (BeforeData, AfterData: an id, a URL).
// Added: it had none before; Removed: it has none after.
type AuditChange struct {
	Field, Before, After  string
	BeforeData, AfterData bool
	Added, Removed        bool
}
