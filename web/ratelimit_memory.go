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
	hits    int
}

type memoryWindow struct {
	start time.Time
	end   time.Time
	count int64
}

func newMemoryCounter() *memoryCounter {
	return &memoryCounter{windows: map[string]memoryWindow{}}
}

func (m *memoryCounter) hit(_ context.Context, key string, window time.Time, size time.Duration) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hits++
	if m.hits%4096 == 0 {
		m.forgetEndedBy(window)
	}
	w := m.windows[key]
	if !w.start.Equal(window) {
		w = memoryWindow{start: window, end: window.Add(size)}
	}
	w.count++
	m.windows[key] = w
	return w.count, nil
}

// forgetEndedBy drops windows over by t, so keys seen once (a login e-mail,
// say) do not accumulate.
func (m *memoryCounter) forgetEndedBy(t time.Time) {
	for k, w := range m.windows {
		if !w.end.After(t) {
			delete(m.windows, k)
		}
	}
}
