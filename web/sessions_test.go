package web_test

import (
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// A person sees their sessions (device, address, last seen), ends one or
// all others; sessions end after 2 hours idle and 12 hours whatever the use.
func TestSessionsAreListedEndedAndBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := webtest.New(t, webtest.WithClock(clock))
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	signedIn := func() *browser {
		b := newBrowser(t, s)
		require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
		return b
	}
	out := func(b *browser, why string) {
		t.Helper()
		r := b.do("GET", "/dashboard/payments", nil, nil)
		require.Equal(t, http.StatusSeeOther, r.status, why)
		require.Equal(t, "/login", r.header.Get("Location"), why)
	}
	a, b, c := signedIn(), signedIn(), signedIn()
	page := a.do("GET", "/dashboard/security", nil, nil)
	require.Equal(t, 3, page.doc.Find(`[data-testid="session"]`).Length())
	require.Equal(t, 1, page.doc.Find(`[data-testid="current-session"]`).Length())
	require.Contains(t, page.doc.Find(`[data-testid="session"]`).First().Text(), "127.0.0.1")

	// End b's session from a.
	var bID string
	page.doc.Find(`[data-testid="session"]`).Each(func(_ int, row *goquery.Selection) {
		if row.Find(`[data-testid="current-session"]`).Length() == 0 && bID == "" {
			bID = row.AttrOr("data-session-id", "")
		}
	})
	token := a.csrf("/dashboard/security")
	require.Equal(t, http.StatusSeeOther, a.do("POST", "/dashboard/security/sessions/"+bID+"/end", url.Values{"_csrf": {token}}, nil).status)
	ended := 0
	for _, x := range []*browser{b, c} {
		if r := x.do("GET", "/dashboard/payments", nil, nil); r.status == http.StatusSeeOther {
			ended++
		}
	}
	require.Equal(t, 1, ended, "exactly the session ended")
	require.Equal(t, http.StatusSeeOther, a.do("POST", "/dashboard/security/sessions/end-others", url.Values{"_csrf": {token}}, nil).status)
	out(b, "ended")
	out(c, "ended with the others")
	require.Equal(t, http.StatusOK, a.do("GET", "/dashboard/payments", nil, nil).status, "this session goes on")

	// Idle past 2 hours: out.
	idle := signedIn()
	advance(2*time.Hour + time.Minute)
	out(idle, "idle")
	// Used every hour, still out 12 hours after signing in.
	busy := signedIn()
	for range 11 {
		advance(time.Hour)
		require.Equal(t, http.StatusOK, busy.do("GET", "/dashboard/payments", nil, nil).status)
	}
	advance(time.Hour + time.Minute)
	out(busy, "past the absolute lifetime")
}

// Signing out ends the session where the security page lists them: the
// person's other browser no longer sees it (issue 52).
func TestASignedOutSessionIsNoLongerListed(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	a, b := newBrowser(t, s), newBrowser(t, s)
	for _, x := range []*browser{a, b} {
		require.Equal(t, http.StatusSeeOther, x.login("dona@example.com", "correct-horse-battery").status)
	}
	require.Equal(t, 2, a.do("GET", "/dashboard/security", nil, nil).doc.Find(`[data-testid="session"]`).Length())
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/logout", url.Values{"_csrf": {b.csrf("/dashboard/security")}}, nil).status)
	page := a.do("GET", "/dashboard/security", nil, nil)
	require.Equal(t, 1, page.doc.Find(`[data-testid="session"]`).Length(), "only the open one")
	require.Equal(t, 1, page.doc.Find(`[data-testid="current-session"]`).Length())
}
