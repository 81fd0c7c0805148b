package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/handlers/dashboard"
	"payments/store"
	"payments/web/webtest"
)

// browser is a cookie-keeping client that shows redirects instead of following them.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newBrowser(t *testing.T, s *webtest.Server) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, base: s.URL, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status int
	header http.Header
	body   string
	doc    *goquery.Document
}

func (b *browser) do(method, path string, form url.Values, headers map[string]string) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	require.NoError(b.t, err)
	req.Header.Set("Accept", "text/html")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return b.send(req)
}

// send makes req with the browser's cookies and reads the page it answers.
func (b *browser) send(req *http.Request) page {
	b.t.Helper()
	res, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(raw)))
	require.NoError(b.t, err)
	return page{status: res.StatusCode, header: res.Header, body: string(raw), doc: doc}
}

// url is path on the browser's server.
func (b *browser) url(path string) *url.URL {
	u, err := url.Parse(b.base + path)
	require.NoError(b.t, err)
	return u
}

// cookie is the browser's cookie name for path, or nil.
func (b *browser) cookie(path, name string) *http.Cookie {
	for _, c := range b.client.Jar.Cookies(b.url(path)) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// confirm posts form to path, which answers with its confirmation page,
// and posts the page's own form back (its hidden fields, the one-time
// token among them), as the confirm button does.
func (b *browser) confirm(path string, form url.Values, headers map[string]string) page {
	b.t.Helper()
	ask := b.do("POST", path, form, headers)
	require.Equal(b.t, http.StatusOK, ask.status, "the confirmation page: %s", ask.body)
	return b.do("POST", path, confirmForm(b.t, ask), headers)
}

// confirmForm is what the confirmation page's button posts.
func confirmForm(t *testing.T, ask page) url.Values {
	t.Helper()
	form := url.Values{}
	ask.doc.Find(`[data-testid="confirmation"] form input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		form.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	require.Equal(t, "1", form.Get("confirmed"), "a confirmation page: %s", ask.body)
	return form
}

func (b *browser) csrf(path string) string {
	b.t.Helper()
	p := b.do("GET", path, nil, nil)
	require.Equal(b.t, http.StatusOK, p.status)
	token := p.doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")
	require.NotEmpty(b.t, token)
	return token
}

func (b *browser) login(email, password string) page {
	b.t.Helper()
	token := b.csrf("/login")
	return b.do("POST", "/login", url.Values{"email": {email}, "password": {password}, "_csrf": {token}}, nil)
}

func ownerFor(t *testing.T, s *webtest.Server, accountID, email string) {
	t.Helper()
	_, err := s.Store.CreateUser(context.Background(), email, "correct-horse-battery", store.RoleOwner, accountID)
	require.NoError(t, err)
}

func TestLoginSessionAndLogout(t *testing.T) {
	t.Parallel()
	t.Run("memory sessions", func(t *testing.T) { t.Parallel(); loginSessionAndLogout(t, webtest.New(t)) })
	t.Run("redis sessions", func(t *testing.T) { t.Parallel(); loginSessionAndLogout(t, webtest.New(t, webtest.WithRedis(t))) })
}

func loginSessionAndLogout(t *testing.T, s *webtest.Server) {
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)

	r := b.do("GET", "/dashboard/payments", nil, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	require.Equal(t, "/login", r.header.Get("Location"))

	r = b.login("owner@example.com", "wrong-password-123")
	require.Equal(t, http.StatusUnauthorized, r.status)
	require.Equal(t, "E-mail ou senha incorretos.", r.doc.Find(`[data-testid="login-error"]`).Text())
	r = b.login("nobody@example.com", "whatever-password")
	require.Equal(t, http.StatusUnauthorized, r.status)
	require.Equal(t, "E-mail ou senha incorretos.", r.doc.Find(`[data-testid="login-error"]`).Text(), "no hint which e-mails exist")

	r = b.login("OWNER@example.com", "correct-horse-battery")
	require.Equal(t, http.StatusSeeOther, r.status)
	require.Equal(t, "/dashboard", r.header.Get("Location"))
	var sessionCookie string
	for _, c := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "payments_session=") {
			sessionCookie = c
		}
	}
	require.NotEmpty(t, sessionCookie)
	require.Contains(t, sessionCookie, "HttpOnly")
	require.Contains(t, strings.ToLower(sessionCookie), "samesite=lax")

	r = b.do("GET", "/dashboard/payments", nil, nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, "owner@example.com", r.doc.Find(`[data-testid="user-email"]`).Text())
	require.Equal(t, 1, r.doc.Find(`[data-testid="payments-empty"]`).Length())
	require.NotContains(t, s.Logs.String(), "correct-horse-battery", "passwords never reach the logs")

	token := r.doc.Find(`form[action="/logout"] input[name="_csrf"]`).AttrOr("value", "")
	r = b.do("POST", "/logout", url.Values{"_csrf": {token}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	r = b.do("GET", "/dashboard/payments", nil, nil)
	require.Equal(t, http.StatusSeeOther, r.status, "signed out")
}

func TestPostWithoutCSRFTokenIsRefused(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.csrf("/login")
	r := b.do("POST", "/login", url.Values{"email": {"owner@example.com"}, "password": {"correct-horse-battery"}}, nil)
	require.Equal(t, http.StatusForbidden, r.status)
	require.Equal(t, 1, r.doc.Find(`[data-testid="error-page"]`).Length(), "a browser gets an HTML error page")
	r = b.do("POST", "/login", url.Values{"email": {"owner@example.com"}, "password": {"correct-horse-battery"}, "_csrf": {"forged"}}, nil)
	require.Equal(t, http.StatusForbidden, r.status)

	require.Equal(t, http.StatusSeeOther, b.login("owner@example.com", "correct-horse-battery").status)
	r = b.do("POST", "/logout", url.Values{}, nil)
	require.Equal(t, http.StatusForbidden, r.status, "signed in, a POST still needs the token")
	token := b.csrf("/dashboard/payments")
	r = b.do("POST", "/logout", nil, map[string]string{"X-CSRF-Token": token})
	require.Equal(t, http.StatusSeeOther, r.status, "htmx sends it as a header")
}

func TestOwnerSeesOnlyTheirAccount(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	other, otherKey, _ := s.NewAccount("Outra", "outra@example.com")
	ownerFor(t, s, other.ID, "owner2@example.com")
	mine := s.CreatePayment(map[string]any{"amount_cents": 1234, "external_id": "mine"})
	theirs := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: otherKey, Body: map[string]any{"amount_cents": 999}}).JSON(t)
	paid := s.CreatePayment(map[string]any{"amount_cents": 500})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/pay", Key: s.TestKey})

	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("owner@example.com", "correct-horse-battery").status)
	r := b.do("GET", "/dashboard/payments", nil, nil)
	require.Equal(t, http.StatusOK, r.status)
	var ids []string
	r.doc.Find(`[data-testid="payment-row"]`).Each(func(_ int, sel *goquery.Selection) { ids = append(ids, sel.AttrOr("data-payment-id", "")) })
	require.ElementsMatch(t, []string{mine["id"].(string), paid["id"].(string)}, ids)
	require.NotContains(t, r.body, theirs["id"].(string))

	r = b.do("GET", "/dashboard/payments?status=paid", nil, nil)
	require.Equal(t, 1, r.doc.Find(`[data-testid="payment-row"]`).Length())
	require.Equal(t, "R$ 5,00", r.doc.Find(`[data-testid="payment-row"] td`).First().Text())
}

func TestDashboardPagination(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	for range 30 {
		s.CreatePayment(map[string]any{"amount_cents": 100})
	}
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	first := b.do("GET", "/dashboard/payments", nil, nil)
	require.Equal(t, 25, first.doc.Find(`[data-testid="payment-row"]`).Length())
	require.Zero(t, first.doc.Find(`[data-testid="prev-page"]`).Length())
	next := first.doc.Find(`[data-testid="next-page"]`).AttrOr("href", "")
	second := b.do("GET", next, nil, nil)
	require.Equal(t, 5, second.doc.Find(`[data-testid="payment-row"]`).Length())
	require.Zero(t, second.doc.Find(`[data-testid="next-page"]`).Length())
	back := b.do("GET", second.doc.Find(`[data-testid="prev-page"]`).AttrOr("href", ""), nil, nil)
	require.Equal(t, 25, back.doc.Find(`[data-testid="payment-row"]`).Length())
	require.Equal(t, first.doc.Find(`[data-testid="payment-row"]`).First().AttrOr("data-payment-id", ""),
		back.doc.Find(`[data-testid="payment-row"]`).First().AttrOr("data-payment-id", ""))
}

func TestLoginIsRateLimited(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	token := b.csrf("/login")
	limited := 0
	for range 22 {
		r := b.do("POST", "/login", url.Values{"email": {"owner@example.com"}, "password": {"guess-guess-guess"}, "_csrf": {token}}, nil)
		if r.status == http.StatusTooManyRequests {
			limited++
			require.Equal(t, "60", r.header.Get("Retry-After"))
		} else {
			require.Equal(t, http.StatusUnauthorized, r.status)
		}
	}
	// 10 a minute: 22 attempts span at most two windows, so at least 2 are refused.
	require.GreaterOrEqual(t, limited, 2)
}

// Sign-in attempts are limited per address across e-mails too, and two
// instances sharing Redis share the counts: 50 attempts from one address,
// alternating between them, within one minute, each for a new e-mail, meet
// 30 allowed and 20 refused (each instance alone would have allowed its 25).
func TestLoginThrottlePerAddressAcrossInstances(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithRedis(t))
	other := s.Sibling(t)
	var limited int
	inOneLoginWindow(t, func(round int) {
		limited = 0
		for i := range 50 {
			srv := s
			if i%2 == 1 {
				srv = other
			}
			b := newBrowser(t, srv)
			token := b.csrf("/login")
			r := b.do("POST", "/login", url.Values{"email": {fmt.Sprintf("who%d-%d@example.com", round, i)}, "password": {"guess-guess-guess"}, "_csrf": {token}}, nil)
			if r.status == http.StatusTooManyRequests {
				limited++
			} else {
				require.Equal(t, http.StatusUnauthorized, r.status)
			}
		}
	})
	require.Equal(t, 20, limited)
}

// inOneLoginWindow runs fn until one run falls within a single counting
// window of the sign-in throttle (fixed windows: a run that crosses into
// the next one starts with fresh counts, whatever the machine's speed).
func inOneLoginWindow(t *testing.T, fn func(round int)) {
	t.Helper()
	nextWindow := func() { time.Sleep(time.Until(time.Now().Truncate(dashboard.LoginWindow).Add(dashboard.LoginWindow))) }
	for round := range 3 {
		if time.Since(time.Now().Truncate(dashboard.LoginWindow)) > dashboard.LoginWindow/2 {
			nextWindow()
		}
		start := time.Now().Truncate(dashboard.LoginWindow)
		fn(round)
		if time.Now().Truncate(dashboard.LoginWindow).Equal(start) {
			return
		}
		// The window it crossed into holds some of its counts: the next
		// round starts in a fresh one.
		t.Logf("round %d crossed a counting window; again in the next", round)
		nextWindow()
	}
	t.Fatal("three rounds crossed a counting window")
}

// Behind a trusted proxy, each client's address has its own sign-in budget
// (otherwise every client would share the proxy's).
func TestLoginThrottleCountsTheClientBehindAProxy(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithTrustedProxies("127.0.0.1"))
	attempt := func(client string, i int) int {
		b := newBrowser(t, s)
		token := b.csrf("/login")
		return b.do("POST", "/login", url.Values{"email": {fmt.Sprintf("p%d@example.com", i)}, "password": {"guess-guess-guess"}, "_csrf": {token}},
			map[string]string{"X-Forwarded-For": client}).status
	}
	var statuses []int
	inOneLoginWindow(t, func(round int) {
		statuses = statuses[:0]
		client := fmt.Sprintf("203.0.113.%d", 7+2*round)
		for i := range 31 {
			statuses = append(statuses, attempt(client, i))
		}
		statuses = append(statuses, attempt(fmt.Sprintf("203.0.113.%d", 8+2*round), 31))
	})
	for i := range 30 {
		require.Equal(t, http.StatusUnauthorized, statuses[i], "attempt %d", i)
	}
	require.Equal(t, http.StatusTooManyRequests, statuses[30])
	require.Equal(t, http.StatusUnauthorized, statuses[31], "another client behind the same proxy")
}

// The owner signs in from a device that signed in before while an
// attacker's wrong passwords for the same e-mail, from 50 addresses, are
// throttled; without the device cookie the owner would wait like anyone
// else, and the device's own guesses have a limit of their own.
func TestOwnerSignsInFromAKnownDeviceWhileGuessesAreThrottled(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithTrustedProxies("127.0.0.1"))
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	signIn := func(b *browser, addr, email, password string) int {
		token := b.csrf("/login")
		return b.do("POST", "/login", url.Values{"email": {email}, "password": {password}, "_csrf": {token}}, from(addr)).status
	}
	var attacked, afterwards, untrusted, ownDevice []int
	inOneLoginWindow(t, func(round int) {
		email := fmt.Sprintf("dona%d@example.com", round)
		ownerFor(t, s, s.Account.ID, email)
		owner := newBrowser(t, s)
		first := owner.do("POST", "/login", url.Values{"email": {email}, "password": {"correct-horse-battery"}, "_csrf": {owner.csrf("/login")}},
			from("198.51.100.1"))
		require.Equal(t, http.StatusSeeOther, first.status)
		var set string
		for _, c := range first.header.Values("Set-Cookie") {
			if strings.HasPrefix(c, dashboard.DeviceCookie+"=") {
				set = c
			}
		}
		require.Contains(t, set, "path=/login")
		require.Contains(t, strings.ToLower(set), "httponly")
		device := owner.cookie("/login", dashboard.DeviceCookie)
		require.NotNil(t, device, "a sign-in leaves a device cookie")

		attacked = attacked[:0]
		for i := range 50 {
			attacked = append(attacked, signIn(newBrowser(t, s), fmt.Sprintf("203.0.113.%d", 100+i), email, "guess-guess-guess"))
		}
		afterwards = []int{signIn(owner, "198.51.100.2", email, "correct-horse-battery")}
		untrusted = []int{signIn(newBrowser(t, s), "198.51.100.3", email, "correct-horse-battery")}
		// The device's own guesses: ten attempts in all (the owner's sign-in
		// from it was one), then it counts as any browser.
		thief := newBrowser(t, s)
		thief.client.Jar.SetCookies(owner.url("/login"), []*http.Cookie{device})
		ownDevice = ownDevice[:0]
		for range dashboard.LoginDeviceLimit {
			ownDevice = append(ownDevice, signIn(thief, "198.51.100.4", email, "guess-guess-guess"))
		}
	})
	limited := 0
	for i, status := range attacked {
		if status == http.StatusTooManyRequests {
			limited++
		} else {
			require.Equal(t, http.StatusUnauthorized, status, "attempt %d", i)
		}
	}
	require.Equal(t, 50-(dashboard.LoginLimit-1), limited, "guesses throttled (the owner's first sign-in counted too)")
	require.Equal(t, []int{http.StatusSeeOther}, afterwards, "the owner, from the known device, at a new address")
	require.Equal(t, []int{http.StatusTooManyRequests}, untrusted, "the right password from a browser without the cookie waits")
	for i := range dashboard.LoginDeviceLimit - 1 {
		require.Equal(t, http.StatusUnauthorized, ownDevice[i], "the device's guesses: %v", ownDevice)
	}
	require.Equal(t, http.StatusTooManyRequests, ownDevice[dashboard.LoginDeviceLimit-1], "past its own limit the device is throttled with the rest")
	require.Positive(t, s.MetricValue(`payments_limit_refusals_total{limit="sign_in"}`))
}

func TestStaticAssetsAreServed(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	for path, ctype := range map[string]string{"/static/app.css": "text/css", "/static/htmx.min.js": "javascript"} {
		r := s.DoRaw(webtest.Request{Method: "GET", Path: path})
		require.Equal(t, http.StatusOK, r.Status, path)
		require.Contains(t, r.Header.Get("Content-Type"), ctype)
		require.Greater(t, len(r.Body), 1000)
	}
}

func TestWebhookFormShowsErrorsInline(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithoutPrivateNetworks())
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	form := b.do("GET", "/dashboard/webhooks/new", nil, nil)
	require.Equal(t, "payment.paid", form.doc.Find(`input[name="events"][checked]`).AttrOr("value", ""), "payment.paid is preselected")
	require.Equal(t, "v2", form.doc.Find(`input[name="api_version"][checked]`).AttrOr("value", ""), "v2 is the default")

	r := b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"http://10.0.0.1/hook"}, "secret": {"short"}, "name": {"X"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="error-url"]`).Text(), "https")
	require.Contains(t, r.doc.Find(`[data-testid="error-secret"]`).Text(), "de 16 a 128")
	require.NotEmpty(t, r.doc.Find(`[data-testid="error-events"]`).Text())
	require.Equal(t, "http://10.0.0.1/hook", r.doc.Find("#url").AttrOr("value", ""), "what was typed is kept")
	require.Equal(t, "", r.doc.Find("#secret").AttrOr("value", ""), "a secret is never rendered back")
	n, err := s.Store.CountWebhooks(context.Background(), s.Account.ID)
	require.NoError(t, err)
	require.Zero(t, n)

	r = b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid", "payment.expired"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	detail := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, 1, detail.doc.Find(`[data-testid="new-secret"]`).Length())
	again := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Zero(t, again.doc.Find(`[data-testid="new-secret"]`).Length(), "shown once")
}

func TestSupportUsersCannotChangeWebhooks(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	_, err := s.Store.CreateUser(context.Background(), "help@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("help@example.com", "correct-horse-battery").status)
	token := b.csrf("/dashboard/support")
	r := b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"}}, nil)
	require.Equal(t, http.StatusForbidden, r.status)
	require.Equal(t, 1, r.doc.Find(`[data-testid="error-page"]`).Length())
	require.Contains(t, r.doc.Find(`[data-testid="error-page"]`).Text(), "pode consultar, mas não alterar")
	// The owner's pages are not the support staff's: their nav leads to the console and their preferences.
	support := b.do("GET", "/dashboard/support", nil, nil)
	var nav []string
	support.doc.Find(`nav[aria-label] a`).Each(func(_ int, sel *goquery.Selection) { nav = append(nav, sel.AttrOr("href", "")) })
	require.Equal(t, []string{"/dashboard/support", "/dashboard/settings", "/dashboard/security"}, nav)
	for _, path := range []string{"/dashboard/webhooks", "/dashboard/payments", "/dashboard/balance", "/dashboard/api-keys"} {
		require.Equal(t, http.StatusForbidden, b.do("GET", path, nil, nil).status, path)
	}
	require.Equal(t, http.StatusOK, b.do("GET", "/dashboard/settings", nil, nil).status, "their own preferences")
}

func TestSupportConsoleSearchesEveryAccount(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	_, err := s.Store.CreateUser(context.Background(), "help@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	other, otherKey, _ := s.NewAccount("Outra Loja", "outra@example.com")
	mine := s.CreatePayment(validPayment("order-7", "maria@example.com"))
	theirs := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: otherKey, Body: validPayment("order-9", "Maria@Example.com")}).JSON(t)

	b := newBrowser(t, s)
	r := b.login("help@example.com", "correct-horse-battery")
	require.Equal(t, "/dashboard", r.header.Get("Location"))
	require.Equal(t, "/dashboard/support", b.do("GET", "/dashboard", nil, nil).header.Get("Location"))

	found := func(q string) []string {
		page := b.do("GET", "/dashboard/support?q="+url.QueryEscape(q), nil, nil)
		require.Equal(t, http.StatusOK, page.status)
		var ids []string
		page.doc.Find(`[data-testid="support-row"]`).Each(func(_ int, sel *goquery.Selection) { ids = append(ids, sel.AttrOr("data-payment-id", "")) })
		return ids
	}
	require.ElementsMatch(t, []string{mine["id"].(string), theirs["id"].(string)}, found("MARIA@example.com"), "by e-mail, any account, any case")
	require.Equal(t, []string{theirs["id"].(string)}, found("order-9"))
	require.Equal(t, []string{mine["id"].(string)}, found(mine["id"].(string)))
	require.Empty(t, found("nobody@example.com"))

	detail := b.do("GET", "/dashboard/support/payments/"+theirs["id"].(string), nil, nil)
	require.Equal(t, http.StatusOK, detail.status)
	require.Contains(t, detail.doc.Find(`[data-testid="payment-account"]`).Text(), other.ID)
	require.Zero(t, detail.doc.Find(`[data-testid="simulate-payment"]`).Length())

	// Owners do not get the console.
	o := newBrowser(t, s)
	o.login("owner@example.com", "correct-horse-battery")
	require.Equal(t, http.StatusForbidden, o.do("GET", "/dashboard/support?q=order-9", nil, nil).status)
}

func validPayment(externalID, email string) map[string]any {
	return map[string]any{"amount_cents": 2500, "external_id": externalID,
		"customer": map[string]any{"name": "Maria Silva", "email": email, "document": "52998224725"}}
}

func TestAPIKeysPageAndModeSwitch(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	live := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey, Body: map[string]any{"amount_cents": 777}}).JSON(t)
	test := s.CreatePayment(map[string]any{"amount_cents": 111})
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	enrollTOTP(t, s, b) // a live key needs a second factor, fresh

	token := b.csrf("/dashboard/api-keys")
	r := b.do("POST", "/dashboard/api-keys", url.Values{"_csrf": {token}, "mode": {"live"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	page := b.do("GET", "/dashboard/api-keys", nil, nil)
	newKey := page.doc.Find(`[data-testid="new-key"]`).Text()
	require.Regexp(t, `^sk_live_[0-9A-Za-z]{32}$`, newKey)
	again := b.do("GET", "/dashboard/api-keys", nil, nil)
	require.Zero(t, again.doc.Find(`[data-testid="new-key"]`).Length(), "shown once")
	require.NotContains(t, again.body, newKey)
	require.Equal(t, 3, again.doc.Find(`[data-testid="key-row"]`).Length())

	works := s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: newKey})
	require.Equal(t, http.StatusOK, works.Status)
	k, err := s.Store.APIKeyBySecret(context.Background(), newKey)
	require.NoError(t, err)
	r = b.do("POST", "/dashboard/api-keys/"+k.ID+"/revoke", url.Values{"_csrf": {token}}, nil)
	require.Equal(t, http.StatusOK, r.status, "a confirmation first")
	require.Contains(t, r.doc.Find(`[data-testid="confirm-summary"]`).Text(), k.Redacted)
	require.Equal(t, http.StatusOK, s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: newKey}).Status, "not revoked yet")
	r = b.do("POST", "/dashboard/api-keys/"+k.ID+"/revoke", url.Values{"_csrf": {token}, "confirmed": {"1"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	revoked := s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: newKey})
	require.Equal(t, http.StatusUnauthorized, revoked.Status)

	rowIDs := func() []string {
		var ids []string
		b.do("GET", "/dashboard/payments", nil, nil).doc.Find(`[data-testid="payment-row"]`).Each(func(_ int, sel *goquery.Selection) {
			ids = append(ids, sel.AttrOr("data-payment-id", ""))
		})
		return ids
	}
	require.Equal(t, []string{test["id"].(string)}, rowIDs(), "test mode first")
	r = b.do("POST", "/dashboard/mode", url.Values{"_csrf": {token}, "mode": {"live"}}, map[string]string{"Referer": s.URL + "/dashboard/payments?status=paid"})
	require.Equal(t, "/dashboard/payments", r.header.Get("Location"))
	require.Equal(t, []string{live["id"].(string)}, rowIDs(), "live after the switch")
	r = b.do("POST", "/dashboard/mode", url.Values{"_csrf": {token}, "mode": {"test"}}, map[string]string{"Referer": "https://evil.example/dashboard/x"})
	require.Equal(t, "/dashboard", r.header.Get("Location"), "never back to another origin")
}

func TestWebhookEditForm(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithoutPrivateNetworks())
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	id, _ := s.CreateWebhook("https://example.com/hook", map[string]any{"name": "Old", "events": []string{"payment.paid"}})
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	form := b.do("GET", "/dashboard/webhooks/"+id+"/edit", nil, nil)
	require.Equal(t, http.StatusOK, form.status)
	require.Equal(t, "Old", form.doc.Find("#name").AttrOr("value", ""))
	require.Zero(t, form.doc.Find("#secret").Length(), "secrets change by rotation, not by edit")
	token := form.doc.Find(`input[name="_csrf"]`).AttrOr("value", "")

	bad := b.do("POST", "/dashboard/webhooks/"+id+"/edit", url.Values{"_csrf": {token}, "url": {"https://127.0.0.1/x"}, "events": {"payment.paid"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, bad.status)
	require.NotEmpty(t, bad.doc.Find(`[data-testid="error-url"]`).Text())

	ok := b.do("POST", "/dashboard/webhooks/"+id+"/edit", url.Values{"_csrf": {token}, "name": {"New"}, "url": {"https://hooks.example.com/v1"},
		"api_version": {"v1"}, "events": {"payment.paid", "payment.refunded"}}, nil)
	require.Equal(t, http.StatusSeeOther, ok.status)
	w, err := s.Store.Webhook(context.Background(), store.Scope{AccountID: s.Account.ID}, id)
	require.NoError(t, err)
	require.Equal(t, "New", w.Name)
	require.Equal(t, "https://hooks.example.com/v1", w.URL)
	require.Equal(t, "v1", w.APIVersion)
	require.Equal(t, []string{"payment.paid", "payment.refunded"}, w.Events)
}

func TestPaymentsSearchAndDateFilters(t *testing.T) {
	t.Parallel()
	clk := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	s := webtest.New(t, webtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return clk }))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	early := s.CreatePayment(validPayment("order-1", "ana@example.com"))
	mu.Lock()
	clk = clk.Add(48 * time.Hour)
	mu.Unlock()
	late := s.CreatePayment(validPayment("order-2", "bia@example.com"))

	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	ids := func(query string) []string {
		var out []string
		b.do("GET", "/dashboard/payments?"+query, nil, nil).doc.Find(`[data-testid="payment-row"]`).Each(func(_ int, sel *goquery.Selection) {
			out = append(out, sel.AttrOr("data-payment-id", ""))
		})
		return out
	}
	require.Equal(t, []string{early["id"].(string)}, ids("q=ANA@example.com"))
	require.Equal(t, []string{late["id"].(string)}, ids("q=order-2"))
	// Days are Brasília's (UTC-3): the payments were made at 09:00 on the 10th and the 12th there.
	require.Equal(t, []string{late["id"].(string)}, ids("from=2026-05-11"))
	require.Equal(t, []string{early["id"].(string)}, ids("to=2026-05-10"), "to includes its whole day")
	require.Empty(t, ids("from=2026-05-11&to=2026-05-11"))
	require.Len(t, ids("from=not-a-date"), 2, "an unreadable date is ignored")
	empty := b.do("GET", "/dashboard/payments?q=nobody", nil, nil)
	require.Contains(t, empty.doc.Find(`[data-testid="payments-empty"]`).Text(), "Nenhum pagamento com estes filtros")
}

func TestSettingsAndPasswordChange(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/settings", nil, nil)
	require.Equal(t, "0,99% por pagamento + R$ 0,00", page.doc.Find(`[data-testid="pricing"]`).Text())
	token := page.doc.Find(`form[action="/dashboard/settings/password"] input[name="_csrf"]`).AttrOr("value", "")

	r := b.do("POST", "/dashboard/settings/password", url.Values{"_csrf": {token}, "current": {"wrong-password-1"}, "new": {"another-good-password"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="password-error"]`).Text(), "incorreta")
	r = b.do("POST", "/dashboard/settings/password", url.Values{"_csrf": {token}, "current": {"correct-horse-battery"}, "new": {"short"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	r = b.do("POST", "/dashboard/settings/password", url.Values{"_csrf": {token}, "current": {"correct-horse-battery"}, "new": {"another-good-password"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	require.Equal(t, "Senha trocada.", b.do("GET", r.header.Get("Location"), nil, nil).doc.Find(`[data-testid="notice"]`).Text())

	fresh := newBrowser(t, s)
	require.Equal(t, http.StatusUnauthorized, fresh.login("owner@example.com", "correct-horse-battery").status)
	require.Equal(t, http.StatusSeeOther, fresh.login("owner@example.com", "another-good-password").status)
}

func TestAutoDisabledWebhookBanner(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	id, _ := s.CreateWebhook("https://example.com/hook", nil)
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	require.Zero(t, b.do("GET", "/dashboard/webhooks", nil, nil).doc.Find(`[data-testid="auto-disabled-banner"]`).Length())
	_, err := s.DB.NewRaw("UPDATE webhooks SET enabled = false, disabled_reason = 'failing' WHERE id = ?", id).Exec(context.Background())
	require.NoError(t, err)
	page := b.do("GET", "/dashboard/webhooks", nil, nil)
	require.Contains(t, page.doc.Find(`[data-testid="auto-disabled-banner"]`).Text(), "1 webhook foi desativado")
	detail := b.do("GET", "/dashboard/webhooks/"+id, nil, nil)
	require.Contains(t, detail.doc.Find(`[data-testid="disabled-reason"]`).Text(), "mais de 5 dias")
	require.Equal(t, 1, detail.doc.Find(`[data-testid="test-disabled"]`).Length(), "no test sends to a disabled webhook")
	require.Zero(t, detail.doc.Find(`[data-testid="send-test"]`).Length())
}

func TestSendTestWithAndWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	recv := webtest.NewReceiver(t, nil)
	id, _ := s.CreateWebhook(recv.URL, nil)
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/" + id)

	full := b.do("POST", "/dashboard/webhooks/"+id+"/test", url.Values{"_csrf": {token}, "event_type": {"refund.failed"}}, nil)
	require.Equal(t, http.StatusOK, full.status)
	require.Equal(t, "HX-Request", full.header.Get("Vary"))
	require.Equal(t, 1, full.doc.Find(`header`).Length(), "without htmx: the whole page")
	require.Contains(t, full.doc.Find(`#test-result [data-testid="test-result"]`).Text(), "HTTP 200")
	require.Contains(t, full.doc.Find(`#test-result [data-testid="test-result"]`).Text(), "Devolução não realizada", "the chosen event")

	partial := b.do("POST", "/dashboard/webhooks/"+id+"/test", nil, map[string]string{"HX-Request": "true", "X-CSRF-Token": token})
	require.Equal(t, http.StatusOK, partial.status)
	require.Zero(t, partial.doc.Find(`header`).Length(), "with htmx: the fragment only")
	require.Contains(t, partial.doc.Find(`[data-testid="test-result"]`).Text(), "HTTP 200")
	require.Len(t, recv.Requests(), 2)
	require.Equal(t, "refund.failed", recv.Requests()[0].Header.Get("X-Service-Event"))

	// Test sends are recorded like deliveries, marked, and the API lists them too.
	page := b.do("GET", "/dashboard/webhooks/"+id, nil, nil)
	require.Equal(t, 2, page.doc.Find(`[data-testid="delivery"] [data-testid="delivery-test"]`).Length())
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + id + "/deliveries", Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 2)
	require.Equal(t, true, list[0].(map[string]any)["test"])
}

func TestOwnerCannotOpenAnotherAccountsObjects(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	_, otherKey, _ := s.NewAccount("Outra", "outra@example.com")
	theirHook := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: otherKey,
		Body: map[string]any{"url": "https://example.com/h", "events": []string{"payment.paid"}}}).JSON(t)["id"].(string)
	theirPayment := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: otherKey, Body: map[string]any{"amount_cents": 100}}).JSON(t)["id"].(string)
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks")
	for _, path := range []string{"/dashboard/webhooks/" + theirHook, "/dashboard/webhooks/" + theirHook + "/edit", "/dashboard/payments/" + theirPayment,
		"/dashboard/webhooks/" + theirHook + "/deliveries/whd_0352yX7opge1d4oFRrT7W0"} {
		r := b.do("GET", path, nil, nil)
		require.Equal(t, http.StatusNotFound, r.status, path)
		require.Equal(t, 1, r.doc.Find(`[data-testid="error-page"]`).Length())
	}
	for _, path := range []string{"/dashboard/webhooks/" + theirHook + "/delete", "/dashboard/payments/" + theirPayment + "/simulate"} {
		require.Equal(t, http.StatusNotFound, b.do("POST", path, url.Values{"_csrf": {token}}, nil).status, path)
	}
	var hooks int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM webhooks WHERE id = ?", theirHook).Scan(context.Background(), &hooks))
	require.Equal(t, 1, hooks, "their webhook survived")
	var status string
	require.NoError(t, s.DB.NewRaw("SELECT status FROM payments WHERE id = ?", theirPayment).Scan(context.Background(), &status))
	require.Equal(t, "pending", status)
}
