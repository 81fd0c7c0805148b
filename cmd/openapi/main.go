// Command openapi writes the API's OpenAPI document, which web/openapi.go
// builds from the rules the handlers validate with, to the file named (or
// to standard output): `make generate` writes web/openapi.json with it.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"payments/web"
)

const usage = `usage: openapi [FILE]

Writes the API's OpenAPI document (built by web/openapi.go) to FILE, or to
standard output without one. make generate writes web/openapi.json with it.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run writes the document as args say and returns the exit code: 0, 1 when
// it could not be written, 2 for words it does not take (-h and --help
// print the usage and are 0).
func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		fmt.Fprint(stdout, usage)
		return 0
	case len(args) > 1 || (len(args) == 1 && strings.HasPrefix(args[0], "-")):
		fmt.Fprint(stderr, usage)
		return 2
	}
	doc, err := web.OpenAPI()
	if err == nil {
		if len(args) == 1 {
			err = os.WriteFile(args[0], doc, 0o644)
		} else {
			_, err = stdout.Write(doc)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "openapi:", err)
		return 1
	}
	return 0
}
