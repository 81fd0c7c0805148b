package main

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

// hostTaken spins a thread on each vCPU for d, with the machine otherwise
// idle, and returns for each the share of d it did not run: time the host
// gave the vCPU to someone else (and the guest kernel's own interrupts, a
// fraction of a percent). /proc/stat's steal counts it only where the
// hypervisor reports it; where it does not (PVM guests show 0), this is the
// only sign of a host that takes a tenth of an idle vCPU, and of why the
// latency tail of a phase run then is long.
func hostTaken(d time.Duration) []float64 {
	taken := make([]float64, runtime.NumCPU())
	var wg sync.WaitGroup
	for i := range taken {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := time.Now()
			last, lost := start, time.Duration(0)
			for {
				now := time.Now()
				// A gap longer than a few clock reads is time the thread
				// was not on its vCPU.
				if gap := now.Sub(last); gap > 50*time.Microsecond {
					lost += gap
				}
				last = now
				if now.Sub(start) >= d {
					break
				}
			}
			taken[i] = lost.Seconds() / last.Sub(start).Seconds()
		})
	}
	wg.Wait()
	return taken
}

// hostTakenNote reports hostTaken's shares.
func hostTakenNote(d time.Duration, taken []float64) string {
	shares := make([]string, len(taken))
	for i, f := range taken {
		shares[i] = fmt.Sprintf("%.1f%%", 100*f)
	}
	return fmt.Sprintf("\nJust before the phase, a thread spinning on each idle vCPU for %s did not run %s of the time "+
		"(the host's share, which the steal column shows only where the hypervisor reports it).\n", d, strings.Join(shares, ", "))
}
