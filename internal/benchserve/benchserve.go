// Package benchserve runs the payments binary as `serve` for the
// benchmarks (cmd/loadgen, cmd/scalebench): on a free loopback port,
// against their database, until it answers /readyz; stopped with SIGTERM.
package benchserve

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

// KeepHistory are the settings for a service on a loaded database (cmd/scalebench's):
// nothing swept while it is measured (the history is loaded, not lived)
// and every month of it kept (the default retention would drop the months
// past 30 days at the first maintenance run).
func KeepHistory() []string {
	return []string{"EXPIRY_SWEEP_INTERVAL=1h", "EVENT_RETENTION=2400h", "ATTEMPT_RETENTION=2400h"}
}

// Service is the running binary.
type Service struct {
	Cmd      *exec.Cmd
	BaseURL  string
	stopOnce sync.Once
}

// Start runs binary serve on dbURL, with the benchmarks' settings and env
// added (later entries win), its output to a temporary log named by
// logPattern, and waits until it is ready.
// SecretKeyHex is the service's SECRET_KEY: a load generator that writes
// what the service unseals (webhook secrets) seals it with the same key.
const SecretKeyHex = "0000000000000000000000000000000000000000000000000000000000000001"

func Start(binary, dbURL, logPattern string, env ...string) (*Service, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(append(os.Environ(),
		"DATABASE_URL="+dbURL,
		"LISTEN_ADDR="+addr,
		"BASE_URL=http://"+addr,
		"SECRET_KEY="+SecretKeyHex,
		"RATE_LIMIT_TEST=1000000",
		"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true",
		"REDIS_URL=",
	), env...)
	logFile, err := os.CreateTemp("", logPattern)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	s := &Service{Cmd: cmd, BaseURL: "http://" + addr}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(s.BaseURL + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("service not ready after 30s; its log: %s", logFile.Name())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop sends SIGTERM and waits (30 s at most, then kills); once.
func (s *Service) Stop() {
	s.stopOnce.Do(func() {
		_ = s.Cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = s.Cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = s.Cmd.Process.Kill()
		}
	})
}
