// Command changelog writes the API's changelog (versions.API.Changelog),
// the dated versions and what each changed, to the file named: `make
// generate` writes API_CHANGELOG.md with it.
package main

import (
	"fmt"
	"os"

	"payments/versions"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: changelog FILE")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], []byte(versions.API.Changelog()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
