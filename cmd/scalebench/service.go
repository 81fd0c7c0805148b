package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// service is the payments binary running as `serve` for the benchmark.
type service struct {
	cmd      *exec.Cmd
	baseURL  string
	stopOnce sync.Once
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
		// The history is loaded, not lived: nothing to sweep or deliver
		// while requests are timed.
		"EXPIRY_SWEEP_INTERVAL=1h",
		// ... and the whole history is kept (the default prunes past 30 days).
		"EVENT_RETENTION=2400h", "ATTEMPT_RETENTION=2400h",
	)
	logFile, err := os.CreateTemp("", "payments-scale-*.log")
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

// stop sends SIGTERM and waits.
func (s *service) stop() { s.stopOnce.Do(s.terminate) }

func (s *service) terminate() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}
