// Package service is what the background workers (the webhook dispatcher,
// the PSP worker, the maintenance jobs) share: Start and Stop (Start runs
// the worker's Run until Stop, and Stop returns once Run has returned, which
// a worker's Run does only after every goroutine it started has ended), and
// UntilAnswered, which keeps a worker's finishing write trying through a
// database restart or a deadlock lost.
package service

import (
	"context"
	"sync"
)

// Service runs one Run at a time in the background. The zero value is ready.
type Service struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// Start runs run(ctx) in the background until Stop (or ctx ends). A
// service already started is left as it is.
func (s *Service) Start(ctx context.Context, run func(context.Context)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done != nil {
		return
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		run(ctx)
	}(s.done)
}

// Stop ends the run and returns when it has returned; it may be started again.
func (s *Service) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		return
	}
	s.cancel()
	<-s.done
	s.cancel, s.done = nil, nil
}
