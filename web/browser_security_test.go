package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Two browsers signed in as one merchant: a password change in one signs
// the other out; both pages carry the Content-Security-Policy and work
// under it (checkPage fails on any violation).
func TestBrowserPasswordChangeSignsOutOtherSessions(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	laptop := newBrowserContext(t, viewports[0])
	phone := newBrowserContext(t, viewports[1])
	require.NoError(t, chromedp.Run(laptop, signIn(s, "dona@example.com")))
	require.NoError(t, chromedp.Run(phone, signIn(s, "dona@example.com")))
	checkPage(t, phone, "payments on the phone")

	var notice string
	require.NoError(t, chromedp.Run(laptop,
		chromedp.Navigate(s.URL+"/dashboard/settings"),
		chromedp.WaitVisible(`[data-testid="password-form"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#current`, "correct-horse-battery", chromedp.ByQuery),
		chromedp.SendKeys(`#new`, "another-horse-battery", chromedp.ByQuery),
		chromedp.Submit(`[data-testid="password-form"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="notice"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="notice"]`, &notice, chromedp.ByQuery),
	))
	require.Contains(t, notice, "Senha")
	checkPage(t, laptop, "settings after the change")

	// The laptop goes on; the phone's session is over.
	var url string
	require.NoError(t, chromedp.Run(laptop, chromedp.Navigate(s.URL+"/dashboard/payments"),
		chromedp.WaitVisible(`[data-testid="sign-out"]`, chromedp.ByQuery)))
	require.NoError(t, chromedp.Run(phone, chromedp.Navigate(s.URL+"/dashboard/payments"),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery), chromedp.Location(&url)))
	require.True(t, strings.HasSuffix(url, "/login"), url)
	checkPage(t, phone, "login after being signed out")

	// The headers every page carries.
	for _, path := range []string{"/login", "/pay/" + s.CreatePayment(map[string]any{"amount_cents": 100})["id"].(string)} {
		r := s.DoRaw(webtest.Request{Method: "GET", Path: path})
		require.Equal(t, http.StatusOK, r.Status)
		require.Contains(t, r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'", path)
		require.NotContains(t, r.Header.Get("Content-Security-Policy"), "unsafe-inline", path)
		require.Equal(t, "DENY", r.Header.Get("X-Frame-Options"), path)
		require.Equal(t, "same-origin", r.Header.Get("Referrer-Policy"), path)
		require.Contains(t, r.Header.Get("Permissions-Policy"), "camera=()", path)
	}
}
