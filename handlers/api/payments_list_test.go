package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

type listPage struct {
	ids     []string
	hasMore bool
}

func list(t *testing.T, s *webtest.Server, query string) listPage {
	t.Helper()
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?" + query, Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s: %s", query, r.Body)
	body := r.JSON(t)
	require.Equal(t, "list", body["object"])
	require.Equal(t, "/api/v1/payments", body["url"])
	var page listPage
	for _, item := range body["data"].([]any) {
		page.ids = append(page.ids, item.(map[string]any)["id"].(string))
	}
	page.hasMore = body["has_more"].(bool)
	return page
}

func TestListNewestFirstWithDefaultsAndLimits(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var created []string
	for i := range 12 {
		created = append(created, s.CreatePayment(map[string]any{"amount_cents": 100 + i})["id"].(string))
	}
	page := list(t, s, "")
	require.Len(t, page.ids, 10, "default limit")
	require.True(t, page.hasMore)
	for i, id := range page.ids {
		require.Equal(t, created[len(created)-1-i], id, "newest first")
	}
	require.Len(t, list(t, s, "limit=100").ids, 12)
	require.False(t, list(t, s, "limit=100").hasMore)

	for _, bad := range []struct{ query, param string }{
		{"limit=0", "limit"}, {"limit=101", "limit"}, {"limit=ten", "limit"},
		{"status=done", "status"}, {"created[gte]=yesterday", "created[gte]"}, {"created[lte]=-1", "created[lte]"},
		{"starting_after=nope", "starting_after"}, {"ending_before=123", "ending_before"},
		{"starting_after=" + created[0] + "&ending_before=" + created[1], "ending_before"},
		{"starting_after=00000000-0000-7000-8000-000000000000", "starting_after"},
		{"offset=10", "offset"},
	} {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?" + bad.query, Key: s.TestKey})
		require.Equal(t, http.StatusBadRequest, r.Status, bad.query)
		require.Equal(t, bad.param, r.ErrorParam(t), bad.query)
	}
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := webtest.New(t, webtest.WithClock(clock))

	first := s.CreatePayment(map[string]any{"amount_cents": 100})["id"].(string)
	advance(time.Hour)
	second := s.CreatePayment(map[string]any{"amount_cents": 100})["id"].(string)
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + second + "/pay", Key: s.TestKey})
	advance(time.Hour)
	third := s.CreatePayment(map[string]any{"amount_cents": 100})["id"].(string)

	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Unix()
	require.Equal(t, []string{second}, list(t, s, "status=paid").ids)
	require.Equal(t, []string{third, first}, list(t, s, "status=pending").ids)
	require.Equal(t, []string{third, second}, list(t, s, fmt.Sprintf("created[gte]=%d", base+3600)).ids)
	require.Equal(t, []string{second, first}, list(t, s, fmt.Sprintf("created[lte]=%d", base+3600)).ids, "lte includes its second")
	require.Equal(t, []string{second}, list(t, s, fmt.Sprintf("created[gte]=%d&created[lte]=%d", base+1, base+3600)).ids)
	require.Empty(t, list(t, s, "status=refunded").ids)
}

// Payments created one after another within one millisecond (their
// created_at is the same) still list newest first in the order they were
// made.
func TestListOrderWithinOneMillisecond(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := webtest.New(t, webtest.WithClock(clock))
	var made []string
	for range 12 {
		made = append(made, s.CreatePayment(map[string]any{"amount_cents": 100})["id"].(string))
		mu.Lock()
		now = now.Add(50 * time.Microsecond)
		mu.Unlock()
	}
	page := list(t, s, "limit=20")
	require.Len(t, page.ids, len(made))
	for i, id := range page.ids {
		require.Equal(t, made[len(made)-1-i], id, "position %d", i)
	}
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + made[len(made)-1], Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "2026-03-01T12:00:00.000Z", r.JSON(t)["created_at"], "created_at keeps the millisecond, not the fraction")
}

// TestPaginationUnderConcurrentInserts pages through a fixed set of payments
// in both directions while other payments are being created, and checks
// every original payment appears exactly once, in order.
func TestPaginationUnderConcurrentInserts(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var original []string // oldest first
	for i := range 45 {
		original = append(original, s.CreatePayment(map[string]any{"amount_cents": 1000 + i})["id"].(string))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					s.CreatePayment(map[string]any{"amount_cents": 1})
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()

	// Forward (older pages) from the newest original payment.
	isOriginal := map[string]bool{}
	for _, id := range original {
		isOriginal[id] = true
	}
	newest := original[len(original)-1]
	seen := []string{newest}
	cursor := newest
	for {
		page := list(t, s, "limit=7&starting_after="+url.QueryEscape(cursor))
		seen = append(seen, page.ids...)
		if !page.hasMore {
			break
		}
		cursor = page.ids[len(page.ids)-1]
	}
	require.Len(t, seen, len(original))
	for i, id := range seen {
		require.Equal(t, original[len(original)-1-i], id, "forward position %d", i)
	}

	// Backward (newer pages) from the oldest original payment, stopping at the newest original.
	seen = []string{original[0]}
	cursor = original[0]
	for len(seen) < len(original) {
		page := list(t, s, "limit=6&ending_before="+url.QueryEscape(cursor))
		require.NotEmpty(t, page.ids)
		// A page is newest-first; walking backwards, consume it oldest-first.
		for i := len(page.ids) - 1; i >= 0; i-- {
			if isOriginal[page.ids[i]] {
				seen = append(seen, page.ids[i])
			}
		}
		cursor = page.ids[0]
	}
	require.Equal(t, original, seen[:len(original)], "backward walk sees every payment once, in order")
}
