package views

import (
	"encoding/json"

	"github.com/a-h/templ"
)

// confirmFirst is an onsubmit handler that submits only if the user agrees
// to question. json.Marshal quotes it as a JavaScript string literal.
func confirmFirst(question string) templ.ComponentScript {
	quoted, _ := json.Marshal(question)
	return templ.JSUnsafeFuncCall("return confirm(" + string(quoted) + ")")
}
