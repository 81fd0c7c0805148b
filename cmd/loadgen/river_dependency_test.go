package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// River is the load generator's ceiling, not the service's dependency: no
// binary the service ships imports it.
func TestRiverIsTheLoadGeneratorsAlone(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "payments/cmd/payments", "payments/cmd/psp-sandbox", "payments/cmd/paymentsctl").Output()
	require.NoError(t, err)
	for _, pkg := range strings.Fields(string(out)) {
		require.False(t, strings.HasPrefix(pkg, "github.com/riverqueue/"), "%s is imported by a binary the service ships", pkg)
	}
}
