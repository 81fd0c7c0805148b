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
	"unsafe"

	"golang.org/x/sys/unix"

	"payments/internal/benchserve"
)

// service is the payments binary running as `serve` for the benchmark,
// with its peak resident set size.
type service struct {
	*benchserve.Service
	peakRSS  atomic.Int64 // bytes, sampled, and VmHWM at the end
	peakAnon atomic.Int64 // bytes: the anonymous memory of the highest sample
	// cachedAtStart of binaryPages of the binary's file were in the page
	// cache as the service started (see uncache).
	cachedAtStart, binaryPages int
}

// startService starts binary with its file out of the page cache
// (uncache), so that every run's resident set counts the same pages.
func startService(binary, dbURL string, env ...string) (*service, error) {
	cached, pages := uncache(binary)
	s, err := benchserve.Start(binary, dbURL, "payments-bench-*.log", env...)
	if err != nil {
		return nil, err
	}
	return &service{Service: s, cachedAtStart: cached, binaryPages: pages}, nil
}

// uncache asks the kernel to drop binary's file from the page cache, and
// answers how many of its pages are cached after that, of how many. A
// resident set counts the file's pages the process maps, and a read fault
// maps the cached pages around the one read (fault-around, 64 kB): a
// binary built just before its run is wholly cached, and the service then
// maps 6-7 MB more of it than when started from a file not read since
// (65.1-65.7 against 58.5 MB in `make bench`'s groups; BENCHMARKS.md, "The
// binary's pages"). Every run now starts as the latter, as the
// alternating pairs did (they drop the whole cache before each run); the
// report says how much stayed cached (on a tmpfs, all of it).
func uncache(binary string) (cached, pages int) {
	f, err := os.Open(binary)
	if err != nil {
		return 0, 0 // benchserve.Start says why
	}
	defer f.Close()
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	cached, pages, _ = cachedPages(f)
	return cached, pages
}

// cachedPages counts the pages of f's file in the page cache (mincore on
// a mapping of it, which maps nothing in), and its pages in all.
func cachedPages(f *os.File) (cached, pages int, err error) {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return 0, 0, err
	}
	size, page := int(info.Size()), os.Getpagesize()
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = unix.Munmap(m) }()
	vec := make([]byte, (size+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)),
		uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return 0, 0, errno
	}
	for _, v := range vec {
		cached += int(v & 1)
	}
	return cached, len(vec), nil
}

// sampleRSS records the resident set size, and its anonymous share, every
// 100ms until ctx ends.
func (s *service) sampleRSS(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if m := s.procStatus("VmRSS:", "RssAnon:"); m[0] > s.peakRSS.Load() {
			s.peakRSS.Store(m[0])
			s.peakAnon.Store(m[1])
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// procStatus reads kB fields of /proc/<pid>/status, in bytes, in the
// order given, from one read of it (0 for a field it lacks).
func (s *service) procStatus(fields ...string) []int64 {
	out := make([]int64, len(fields))
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.Cmd.Process.Pid))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for i, field := range fields {
			if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				out[i] = kb * 1024
			}
		}
	}
	return out
}

// stop records the kernel's high-water mark, then stops the service.
func (s *service) stop() {
	if hwm := s.procStatus("VmHWM:")[0]; hwm > s.peakRSS.Load() {
		s.peakRSS.Store(hwm)
	}
	s.Stop()
}
