package api_test

import (
	"log/slog"
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
