package request

import (
	"unicode"
	"unicode/utf8"
)

// IsText says b is UTF-8 without control characters (tab allowed, and
// line breaks when multiline): what an id, a header or a form field of ours
// can hold. Anything else is refused before it reaches a query (PostgreSQL
// rejects invalid UTF-8 and NUL with an error, not a miss).
func IsText(b []byte, multiline bool) bool {
	// Printable ASCII, the common case, in one pass.
	ascii := true
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		return true
	}
	if !utf8.Valid(b) {
		return false
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if !unicode.IsControl(r) || r == '\t' || (multiline && (r == '\n' || r == '\r')) {
			continue
		}
		return false
	}
	return true
}
