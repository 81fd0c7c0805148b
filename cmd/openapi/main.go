// Command openapi writes the API's OpenAPI document, which web/openapi.go
// builds from the rules the handlers validate with, to the file named (or
// to standard output): `make generate` writes web/openapi.json with it.
package main

import (
	"fmt"
	"os"

	"payments/web"
)

func main() {
	doc, err := web.OpenAPI()
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
	if len(os.Args) > 1 {
		err = os.WriteFile(os.Args[1], doc, 0o644)
	} else {
		_, err = os.Stdout.Write(doc)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
}
