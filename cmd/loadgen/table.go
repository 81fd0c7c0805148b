package main

import (
	"fmt"
	"strings"
	"time"
)

// table collects the run's lines and renders them as Markdown.
type table struct {
	rows, cpuRows []string
	stolen        []string // phases the host took too much of the CPU from
	notes         []string // printed after the tables (the slowest deliveries' timeline)
}

// stealWarning is the steal share above which a phase's figures describe
// the host more than the service: in the runs of BENCHMARKS.md, get's ratio
// at c=32 stayed within 0.50–0.60 under it and fell to 0.29–0.41 above it,
// and drains at 40–50% steal ran at a third of their usual rate.
const stealWarning = 0.15

// cpu records where one phase's CPU went (see cpu.go).
func (t *table) cpu(name string, u cpuUse) {
	t.cpuRows = append(t.cpuRows, fmt.Sprintf("| %s | %s |", name, u))
	if u.steal > stealWarning {
		t.stolen = append(t.stolen, fmt.Sprintf("%s (%.0f%%)", name, 100*u.steal))
	}
}

func (t *table) add(name string, got, ceiling result, ceilingWhat string) {
	ceilingCol, ratio := "", ""
	if ceiling.ops > 0 {
		ceilingCol = fmt.Sprintf("%.0f/s (p50 %s, p99 %s)", ceiling.perSecond(), ms(ceiling.p50), ms(ceiling.p99))
		ratio = fmt.Sprintf("%.2f", got.perSecond()/ceiling.perSecond())
	}
	errs := ""
	if got.errs > 0 {
		errs = fmt.Sprintf(" (%d errors)", got.errs)
	}
	t.rows = append(t.rows, fmt.Sprintf("| %s | %.0f/s%s | %s | %s | %s | %s | %s |",
		name, got.perSecond(), errs, ms(got.p50), ms(got.p99), ceilingCol, ratio, ceilingWhat))
}

func (t *table) markdown(svc *service) string {
	peakRSS, peakAnon := svc.peakRSS.Load(), svc.peakAnon.Load()
	var b strings.Builder
	b.WriteString("| measure | service | p50 | p99 | ceiling | ratio | ceiling is |\n|---|---|---|---|---|---|---|\n")
	for _, r := range t.rows {
		b.WriteString(r + "\n")
	}
	if len(t.cpuRows) > 0 {
		b.WriteString("\n| phase | service CPU/op | PostgreSQL CPU/op | loadgen CPU/op | machine busy | steal |\n|---|---|---|---|---|---|\n")
		for _, r := range t.cpuRows {
			b.WriteString(r + "\n")
		}
	}
	fmt.Fprintf(&b, "\nPeak RSS of the service: %.1f MB (%.1f MB of it anonymous at the highest sample, the rest the pages"+
		" of its files it maps; %d of its binary's %d pages were in the page cache when it started)\n",
		float64(peakRSS)/(1<<20), float64(peakAnon)/(1<<20), svc.cachedAtStart, svc.binaryPages)
	for _, n := range t.notes {
		b.WriteString(n)
	}
	if len(t.stolen) > 0 {
		fmt.Fprintf(&b, "\nWarning: the host stole more than %.0f%% of the CPU in %s. Figures of those phases are the host's, not the service's: run again when the host is quieter.\n",
			100*stealWarning, strings.Join(t.stolen, ", "))
	}
	return b.String()
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}
