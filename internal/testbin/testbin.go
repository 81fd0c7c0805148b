// Package testbin gives tests the module's binaries to run as separate
// processes: the one an environment variable names (`make test` builds
// them into bin/), or one built once per test process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	built = map[string]*build{}
)

type build struct {
	once sync.Once
	path string
	err  error
}

// Path returns the binary of the main package pkg (./cmd/...): the file
// the variable env names when set, else one built into a temporary directory.
func Path(t testing.TB, env, pkg string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	mu.Lock()
	b, ok := built[pkg]
	if !ok {
		b = &build{}
		built[pkg] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
		if err != nil {
			b.err = fmt.Errorf("testbin: module root: %w", err)
			return
		}
		dir, err := os.MkdirTemp("", "testbin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, filepath.Base(pkg))
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Dir = strings.TrimSpace(string(root))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("testbin: go build %s: %w\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}
