package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"payments/internal/benchserve"
)

// service is the payments binary running as `serve` for the benchmark,
// with its peak resident set size.
type service struct {
	*benchserve.Service
	peakRSS  atomic.Int64 // bytes, sampled, and VmHWM at the end
	peakAnon atomic.Int64 // bytes: the anonymous memory of the highest sample
}

// startService starts binary with its file out of the page cache
// (uncache), so that every run's resident set counts the same pages.
func startService(binary, dbURL string, env ...string) (*service, error) {
	uncache(binary)
	s, err := benchserve.Start(binary, dbURL, "payments-bench-*.log", env...)
	if err != nil {
		return nil, err
	}
	return &service{Service: s}, nil
}

// uncache asks the kernel to drop binary's file from the page cache. A
// resident set counts the file's pages the process maps, and a read fault
// maps the cached pages around the one read (fault-around, 64 kB): a
// binary built just before its run is wholly cached, and the service then
// maps 6-7 MB more of it than when started from a file not read since
// (65.1-65.7 against 58.5 MB in `make bench`'s groups; BENCHMARKS.md, "The
// binary's pages"). Every run now starts as the latter, as the
// alternating pairs did (they drop the whole cache before each run).
func uncache(binary string) {
	f, err := os.Open(binary)
	if err != nil {
		return // benchserve.Start says why
	}
	defer f.Close()
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

// sampleRSS records the resident set size, and its anonymous share, every
// 100ms until ctx ends.
func (s *service) sampleRSS(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if rss, anon := s.procStatus("VmRSS:"), s.procStatus("RssAnon:"); rss > s.peakRSS.Load() {
			s.peakRSS.Store(rss)
			s.peakAnon.Store(anon)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// procStatus reads a kB field of /proc/<pid>/status, in bytes.
func (s *service) procStatus(field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.Cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// stop records the kernel's high-water mark, then stops the service.
func (s *service) stop() {
	if hwm := s.procStatus("VmHWM:"); hwm > s.peakRSS.Load() {
		s.peakRSS.Store(hwm)
	}
	s.Stop()
}
