package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The machine's two cores are shared by the load generator, the service and
// PostgreSQL, so a throughput figure alone does not say what bounds it. Each
// phase also records where the CPU went: per operation for each process, and
// the machine's busy and stolen share (a Firecracker VM's steal time is CPU
// the phase wanted and did not get).

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// cpuSnapshot is cumulative CPU time at one instant.
type cpuSnapshot struct {
	at                      time.Time
	service, postgres, self time.Duration
	busy, steal, all        int64 // machine ticks, from /proc/stat
}

func takeCPU(servicePID int) cpuSnapshot {
	s := cpuSnapshot{at: time.Now(), service: procCPU(servicePID)}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		if comm, err := os.ReadFile(dir + "/comm"); err == nil && string(bytes.TrimSpace(comm)) == "postgres" {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			// With what its exited children spent: the postmaster's
			// reaped autovacuum workers and backends, whose CPU would
			// otherwise leave the sum when they exit.
			s.postgres += procCPU(pid) + procChildrenCPU(pid)
		}
	}
	if stat, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(stat), "\n")
		// cpu user nice system idle iowait irq softirq steal ...
		for i, f := range strings.Fields(line)[1:] {
			n, _ := strconv.ParseInt(f, 10, 64)
			s.all += n
			switch i {
			case 0, 1, 2, 5, 6:
				s.busy += n
			case 7:
				s.steal += n
			}
		}
	}
	return s
}

// procCPU is a process's user plus system time so far.
func procCPU(pid int) time.Duration {
	return procTimes(pid, 11)
}

// procChildrenCPU is the user plus system time of a process's children
// that exited and were waited for.
func procChildrenCPU(pid int) time.Duration {
	return procTimes(pid, 13)
}

// procTimes is the sum of the two clock-tick fields of /proc/pid/stat that
// start at field index first (counted from stat's third field).
func procTimes(pid, first int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may hold spaces: skip past it.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < first+2 {
		return 0
	}
	// Fields 14 and 15 of stat are utime and stime, 16 and 17 cutime and
	// cstime; f starts at field 3.
	ut, _ := strconv.ParseInt(f[first], 10, 64)
	st, _ := strconv.ParseInt(f[first+1], 10, 64)
	return time.Duration(ut+st) * clockTick
}

// cpuUse is one phase's CPU, per operation and for the machine.
type cpuUse struct {
	ops                     int
	service, postgres, self time.Duration // per operation
	busy, steal             float64       // share of the machine's capacity
}

// spent is the CPU used from a to b (a span, not an instant: at is unset).
func spent(a, b cpuSnapshot) cpuSnapshot {
	return cpuSnapshot{service: b.service - a.service, postgres: b.postgres - a.postgres, self: b.self - a.self,
		busy: b.busy - a.busy, steal: b.steal - a.steal, all: b.all - a.all}
}

// plus adds two spans' CPU.
func (s cpuSnapshot) plus(o cpuSnapshot) cpuSnapshot {
	return cpuSnapshot{service: s.service + o.service, postgres: s.postgres + o.postgres, self: s.self + o.self,
		busy: s.busy + o.busy, steal: s.steal + o.steal, all: s.all + o.all}
}

// perOp is a span's CPU per operation and the machine's shares.
func (s cpuSnapshot) perOp(ops int) cpuUse {
	u := cpuUse{ops: ops}
	if ops > 0 {
		u.service = s.service / time.Duration(ops)
		u.postgres = s.postgres / time.Duration(ops)
		u.self = s.self / time.Duration(ops)
	}
	if s.all > 0 {
		u.busy = float64(s.busy) / float64(s.all)
		u.steal = float64(s.steal) / float64(s.all)
	}
	return u
}

func (u cpuUse) String() string {
	return fmt.Sprintf("%s | %s | %s | %.0f%% | %.0f%%",
		us(u.service), us(u.postgres), us(u.self), 100*u.busy, 100*u.steal)
}

func us(d time.Duration) string {
	return fmt.Sprintf("%d µs", d.Microseconds())
}
