package testbin

import (
	"bytes"
	"os/exec"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Process is a binary a test started, its output kept in Logs. It dies with
// the test process (SIGKILL on the parent's death) and is stopped with
// SIGTERM at the test's end unless it already exited.
type Process struct {
	Cmd  *exec.Cmd
	Logs *Buffer
}

// Start runs bin with args, its environment env (nothing inherited beyond
// what env holds).
func Start(t testing.TB, bin string, env []string, args ...string) *Process {
	t.Helper()
	p := &Process{Cmd: exec.Command(bin, args...), Logs: &Buffer{}}
	p.Cmd.Env = env
	p.Cmd.Stdout, p.Cmd.Stderr = p.Logs, p.Logs
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, p.Cmd.Start())
	t.Cleanup(func() {
		if p.Cmd.ProcessState == nil {
			_ = p.Cmd.Process.Signal(syscall.SIGTERM)
			_ = p.Cmd.Wait()
		}
	})
	return p
}

// Kill SIGKILLs the process and waits for it: a crash, not a stop.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	require.NoError(t, p.Cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, p.Cmd.Wait(), "killed, not exited")
}

// Buffer is a bytes.Buffer safe for a process writing while a test reads.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }
