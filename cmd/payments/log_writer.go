package main

import (
	"io"
	"sync"
	"time"
)

// logWriter gathers log lines and writes them out in batches: under load
// the service logs thousands of access lines a second, and a write(2) per
// line cost more CPU than the line itself. Lines reach out within
// flushEvery (once Start ran), at once when 64 KiB are waiting, and all of
// them by Stop, which returns once its flushing goroutine has ended.
type logWriter struct {
	mu         sync.Mutex
	buf        []byte
	out        io.Writer
	flushEvery time.Duration
	stop       chan struct{}
	done       chan struct{}
}

const logBufferLimit = 64 << 10

func newLogWriter(out io.Writer, flushEvery time.Duration) *logWriter {
	return &logWriter{out: out, flushEvery: flushEvery, buf: make([]byte, 0, logBufferLimit),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Start flushes every flushEvery in the background until Stop.
func (w *logWriter) Start() { go w.flushLoop(w.flushEvery) }

// Write takes one whole line (slog writes each record in one call).
func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) >= logBufferLimit {
		w.flushLocked()
	}
	return len(p), nil
}

func (w *logWriter) flushLoop(every time.Duration) {
	defer close(w.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			w.flushLocked()
			w.mu.Unlock()
		}
	}
}

// flushLocked writes what is waiting; a failing destination loses the
// lines (there is nowhere else to report it).
func (w *logWriter) flushLocked() {
	if len(w.buf) > 0 {
		_, _ = w.out.Write(w.buf)
		w.buf = w.buf[:0]
	}
}

// Stop ends the flushing (Start must have run) and writes what is left.
func (w *logWriter) Stop() {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
}
