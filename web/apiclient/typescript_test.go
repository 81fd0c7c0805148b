package apiclient

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// repoRoot is the checkout this test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	return root
}

// npmTool is a tool package.json pins, or a failure that says how to get
// it: the suite's contract checks must run, never skip.
func npmTool(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(repoRoot(t), "node_modules", ".bin", name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed: run the suite with `make test`, which installs package.json's tools (%v)", name, err)
	}
	return path
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
	return string(out)
}

// The README's flows through a TypeScript client: types generated from
// web/openapi.json by openapi-typescript, calls made with openapi-fetch,
// compiled by tsc in strict mode (typescript/tsconfig.json), run by node
// against a real server.
func TestTypeScriptClientRunsTheREADMEFlows(t *testing.T) {
	t.Parallel()
	runTypeScriptFlows(t, "typescript", filepath.Join(repoRoot(t), "web", "openapi.json"))
}

// The TypeScript integrator of the release of 2026-11-26: that release's
// flows.mts, compiled against types generated from that release's document
// (v20261126/openapi.json), run against today's server. Today's document
// would not compile it (the webhook's secret is optional now, and
// flows.mts reads it as a string): this is what an integrator who does not
// regenerate keeps running.
func TestTheTypeScriptClientOfTheReleaseOf20261126StillRunsItsFlows(t *testing.T) {
	t.Parallel()
	runTypeScriptFlows(t, filepath.Join("v20261126", "typescript"), filepath.Join(repoRoot(t), "web", "apiclient", "v20261126", "openapi.json"))
}

// runTypeScriptFlows generates a schema from document, compiles src's
// flows.mts against it and runs it against a new server.
func runTypeScriptFlows(t *testing.T, src, document string) {
	t.Helper()
	generate, tsc := npmTool(t, "openapi-typescript"), npmTool(t, "tsc")
	dir := t.TempDir()
	for _, f := range []string{"flows.mts", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(repoRoot(t), "node_modules"), filepath.Join(dir, "node_modules")))
	run(t, dir, nil, generate, document, "-o", filepath.Join(dir, "schema.d.ts"))
	run(t, dir, nil, tsc, "-p", "tsconfig.json")

	s := webtest.New(t)
	receiver := webtest.NewReceiver(t, nil)
	out := run(t, dir, []string{"BASE_URL=" + s.URL, "API_KEY=" + s.TestKey, "RECEIVER_URL=" + receiver.URL},
		"node", filepath.Join(dir, "out", "flows.mjs"))
	require.Equal(t, "ok\n", out)
}
