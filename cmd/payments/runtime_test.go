package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// The binary's GC defaults apply where the environment sets none, and
// GOGC and GOMEMLIMIT, when set, are the runtime's own to read.
func TestRuntimeDefaultsYieldToTheEnvironment(t *testing.T) {
	gcPercent, memoryLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(gcPercent); debug.SetMemoryLimit(memoryLimit) })

	debug.SetMemoryLimit(1 << 40)
	tuneRuntime(func(string) string { return "" })
	require.Equal(t, defaultGCPercent, debug.SetGCPercent(100))
	require.EqualValues(t, defaultMemoryLimit, debug.SetMemoryLimit(-1))

	debug.SetMemoryLimit(1 << 40)
	tuneRuntime(func(key string) string { return map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}[key] })
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left to the runtime")
	require.EqualValues(t, 1<<40, debug.SetMemoryLimit(-1), "GOMEMLIMIT set: left to the runtime")
}
