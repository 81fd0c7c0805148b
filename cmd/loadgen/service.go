package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// service is the payments binary running as `serve` for the benchmark.
type service struct {
	cmd      *exec.Cmd
	baseURL  string
	stopOnce sync.Once
	peakRSS  atomic.Int64 // bytes, sampled, and VmHWM at the end
}

func startService(binary, dbURL string) (*service, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+dbURL,
		"LISTEN_ADDR="+addr,
		"BASE_URL=http://"+addr,
		"SECRET_KEY=0000000000000000000000000000000000000000000000000000000000000001",
		"RATE_LIMIT_TEST=1000000",
		"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true",
		"REDIS_URL=",
	)
	logFile, err := os.CreateTemp("", "payments-bench-*.log")
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	s := &service{cmd: cmd, baseURL: "http://" + addr}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(s.baseURL + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("service not ready after 30s; its log: %s", logFile.Name())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s, nil
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
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
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

// stop records the kernel's high-water mark, then sends SIGTERM and waits.
func (s *service) stop() { s.stopOnce.Do(s.terminate) }

func (s *service) terminate() {
	if hwm := s.procStatus("VmHWM:"); hwm > s.peakRSS.Load() {
		s.peakRSS.Store(hwm)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}
