package views

import "time"

// timeLayout is how pages show an instant.
const timeLayout = "2006-01-02 15:04:05 UTC"

// FormatTime renders t for a page.
func FormatTime(t time.Time) string { return t.UTC().Format(timeLayout) }
