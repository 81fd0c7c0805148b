// Package spreadsheet is how text goes into the files people open in a
// spreadsheet (reports, the audit trail's and a batch's CSV): as text,
// never as a formula.
package spreadsheet

// formulaStarts are the first characters that make a spreadsheet read a
// cell as a formula (or, tab and carriage return, hide one): OWASP's CSV
// injection list.
const formulaStarts = "=+-@\t\r"

// Text is s as a cell a spreadsheet shows as text: a value that would start
// a formula gets a leading apostrophe, which spreadsheets read as "text
// follows" (OWASP's advice for CSV injection). Anyone's words (a
// description, a payer's name, a user agent) go through it.
func Text(s string) string {
	if s != "" && containsByte(formulaStarts, s[0]) {
		return "'" + s
	}
	return s
}

func containsByte(set string, b byte) bool {
	for i := range len(set) {
		if set[i] == b {
			return true
		}
	}
	return false
}
