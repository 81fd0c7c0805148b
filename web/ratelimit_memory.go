package web

import (
	"context"
	"sync"
	"time"
)

// memoryCounter counts in process memory: right for a single instance.
type memoryCounter struct {
	mu      sync.Mutex
	windows map[string]memoryWindow
}

type memoryWindow struct {
	start int64
	count int64
}

func newMemoryCounter() *memoryCounter {
	return &memoryCounter{windows: map[string]memoryWindow{}}
}

func (m *memoryCounter) hit(_ context.Context, key string, window time.Time) (int64, error) {
	start := window.Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.windows[key]
	if w.start != start {
		w = memoryWindow{start: start}
	}
	w.count++
	m.windows[key] = w
	return w.count, nil
}
