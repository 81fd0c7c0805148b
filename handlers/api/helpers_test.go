package api_test

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func mustTime(t testing.TB, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	require.True(t, ok, "%v is not a timestamp string", v)
	ts, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return ts
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// merged is base with extra's fields set (a nil value removes the field).
func merged(base, extra map[string]any) map[string]any {
	for k, v := range extra {
		if v == nil {
			delete(base, k)
		} else {
			base[k] = v
		}
	}
	return base
}

// movableClock is a clock a test sets to noon of a date (Brasília).
type movableClock struct{ at atomic.Pointer[time.Time] }

func newMovableClock(date string) *movableClock {
	c := &movableClock{}
	c.set(date)
	return c
}

func (c *movableClock) set(date string) { at := noonOf(date)(); c.at.Store(&at) }
func (c *movableClock) now() time.Time  { return *c.at.Load() }
