package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// -h and --help print the usage and write no file (a file named --help
// was written before); an unknown flag is exit 2; a file name gets the
// document.
func TestUsageAndTheDocument(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, help := range []string{"-h", "--help"} {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run([]string{help}, &out, &errOut), help)
		require.Contains(t, out.String(), "usage: openapi [FILE]")
		_, err := os.Stat(filepath.Join(dir, help))
		require.True(t, os.IsNotExist(err), "no file named %s", help)
	}
	var out, errOut bytes.Buffer
	require.Equal(t, 2, run([]string{"--out", "x.json"}, &out, &errOut))
	require.Contains(t, errOut.String(), "usage:")

	require.Equal(t, 0, run([]string{"api.json"}, &out, &errOut), errOut.String())
	b, err := os.ReadFile(filepath.Join(dir, "api.json"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Contains(t, doc, "openapi")
}
