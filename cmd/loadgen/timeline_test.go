package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dumpSteps writes a line per delivery it has steps for, in the order given:
// seconds into the phase, then ms to each step, "-" for a step not known
// (a chained delivery is never woken).
func TestDumpStepsWritesEachDeliveryAgainstThePhasesClock(t *testing.T) {
	start := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	at := func(ms float64) *time.Time {
		t := start.Add(1500*time.Millisecond + time.Duration(ms*float64(time.Millisecond)))
		return &t
	}
	created := start.Add(1500 * time.Millisecond)
	steps := map[string]*timelineSteps{
		"evt_a": {created: created, committed: at(1.25), woken: at(1.5), claimed: at(2), sent: at(2.5), answered: at(3)},
		"evt_b": {created: created.Add(2 * time.Second), committed: at(2001.5), claimed: at(2003), sent: at(2003.25), answered: at(2004)},
	}
	all := []arrival{{id: "evt_b", at: *at(2003.75)}, {id: "evt_lost"}, {id: "evt_a", at: *at(2.75)}}
	for _, a := range all {
		if s, ok := steps[a.id]; ok {
			s.received = &a.at
		}
	}
	path := filepath.Join(t.TempDir(), "steps.txt")
	require.NoError(t, dumpSteps(path, all, steps, start))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "3.5000 1.50 - 3.00 3.25 3.75 4.00\n"+
		"1.5000 1.25 1.50 2.00 2.50 2.75 3.00\n", string(got))
}
