package signature

import (
	_ "embed"
	"strings"
)

// The Node verifiers the suite runs (testdata/*.js), for the pages that
// show integrators how to check a delivery: only their function, without
// the command-line harness the tests drive them through.
var (
	//go:embed testdata/verify.js
	nodeHMACVerifier string
	//go:embed testdata/verify_ed25519.js
	nodeEd25519Verifier string
)

// NodeVerifiers returns the HMAC and the ed25519 verifier in Node.
func NodeVerifiers() (hmac, ed25519 string) {
	return snippet(nodeHMACVerifier), snippet(nodeEd25519Verifier)
}

// snippet keeps a verifier file from its require line to the harness.
func snippet(file string) string {
	if i := strings.Index(file, "const crypto"); i >= 0 {
		file = file[i:]
	}
	if i := strings.Index(file, "\nconst ["); i >= 0 {
		file = file[:i]
	}
	return strings.TrimSpace(file) + "\n"
}
