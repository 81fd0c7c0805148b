package web_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

func TestRateLimitMemory(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithRateLimits(8, 5))
	assertRateLimited(t, s, s.TestKey, 5)
	assertRateLimited(t, s, s.LiveKey, 8)
}

func TestRateLimitRedis(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithRateLimits(8, 5), webtest.WithRedis(t))
	assertRateLimited(t, s, s.TestKey, 5)
	assertRateLimited(t, s, s.LiveKey, 8)
}

// TestRateLimitRedisIsSharedAcrossInstances runs two servers on one Redis:
// a key's budget is one budget, wherever its requests land.
func TestRateLimitRedisIsSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	a := webtest.New(t, webtest.WithRateLimits(1000, 6), webtest.WithRedis(t))
	// The second instance serves the same database's key through the same Redis.
	b := a.Sibling(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := range 40 {
		srv := a
		if i%2 == 1 {
			srv = b
		}
		wg.Go(func() {
			r := srv.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: a.TestKey})
			if r.Status == http.StatusOK {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// 40 requests span at most two one-second windows, so at most 12 pass.
	require.LessOrEqual(t, ok, 12)
	require.GreaterOrEqual(t, ok, 6)
}

// assertRateLimited fires 4x the limit at once (within at most two
// one-second windows) and expects 429s with the documented headers.
func assertRateLimited(t *testing.T, s *webtest.Server, key string, limit int) {
	t.Helper()
	n := 4 * limit
	responses := make([]*webtest.Response, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() { responses[i] = s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: key}) })
	}
	wg.Wait()
	// The budget is per second: a loaded machine may spread the burst over
	// more than two of them, each with its own budget.
	windows := int(time.Now().Unix()-start.Unix()) + 1
	ok, limited := 0, 0
	for _, r := range responses {
		webtest.ValidateResponse(t, "GET", "/api/v1/payments", r)
		require.Equal(t, strconv.Itoa(limit), r.Header.Get("RateLimit-Limit"))
		remaining, err := strconv.Atoi(r.Header.Get("RateLimit-Remaining"))
		require.NoError(t, err)
		require.True(t, remaining >= 0 && remaining < limit)
		reset, err := strconv.Atoi(r.Header.Get("RateLimit-Reset"))
		require.NoError(t, err)
		require.Equal(t, 1, reset)
		switch r.Status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
			require.Equal(t, "rate_limited", r.ErrorCode(t))
			require.Equal(t, "rate_limit_error", r.JSON(t)["error"].(map[string]any)["type"])
			require.Equal(t, "1", r.Header.Get("Retry-After"))
			require.Equal(t, "0", r.Header.Get("RateLimit-Remaining"))
		default:
			t.Fatalf("unexpected status %d", r.Status)
		}
	}
	require.LessOrEqual(t, ok, windows*limit)
	require.GreaterOrEqual(t, limited, n-windows*limit)
	if windows < 4 {
		require.Positive(t, limited, "the burst was limited")
	}
}
