package views

// Confirmation asks before an action that moves money or cannot be undone:
// what will happen, in words (the amount, to whom), a button that posts the
// same form again with confirmed=1, and a way back. It works without
// JavaScript and is the page every such action answers first.
type Confirmation struct {
	Nav     Nav
	Title   string
	Lines   []ConfirmLine
	Warning string
	// Action is where the confirmed form posts; Fields go with it.
	Action    string
	Fields    []Field
	Button    string
	CancelURL string
	Danger    bool
}

// ConfirmLine is one fact of the summary.
type ConfirmLine struct{ Label, Value string }

// Field is a hidden form field.
type Field struct{ Name, Value string }
