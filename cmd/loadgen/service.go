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

	"payments/internal/benchserve"
)

// service is the payments binary running as `serve` for the benchmark,
// with its peak resident set size.
type service struct {
	*benchserve.Service
	peakRSS atomic.Int64 // bytes, sampled, and VmHWM at the end
}

func startService(binary, dbURL string, env ...string) (*service, error) {
	s, err := benchserve.Start(binary, dbURL, "payments-bench-*.log", env...)
	if err != nil {
		return nil, err
	}
	return &service{Service: s}, nil
}

// sampleRSS records the resident set size every 100ms until ctx ends.
func (s *service) sampleRSS(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if rss := s.procStatus("VmRSS:"); rss > s.peakRSS.Load() {
			s.peakRSS.Store(rss)
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
