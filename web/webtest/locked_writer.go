package webtest

import (
	"io"
	"strings"
	"sync"
)

// lockedWriter serializes writes from concurrent request goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Logged reports whether the service has logged text, read under the lock
// its logs are written under: reading Logs while a worker still logs is a
// data race.
func (s *Server) Logged(text string) bool {
	s.logOut.mu.Lock()
	defer s.logOut.mu.Unlock()
	return strings.Contains(s.Logs.String(), text)
}
