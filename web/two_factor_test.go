package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// An owner enrolls an authenticator app (QR, secret, ten recovery codes
// shown once); sign-in then asks for a code; a withdrawal asks for a fresh
// one (5 minutes) and moves nothing without it; codes work once.
func TestTwoFactorSignInAndStepUp(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := webtest.New(t, webtest.WithClock(clock))
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	s.Fund(s.TestKey, 10_000)

	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	token := b.csrf("/dashboard/security")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/security/totp/start", url.Values{"_csrf": {token}}, nil).status)
	page := b.do("GET", "/dashboard/security", nil, nil)
	require.Equal(t, "no-store", page.header.Get("Cache-Control"))
	secret := page.doc.Find(`[data-testid="totp-secret"]`).Text()
	require.Len(t, secret, 32)
	require.Contains(t, page.doc.Find(`[data-testid="totp-qr"]`).AttrOr("src", ""), "data:image/png;base64,")
	wrong := b.do("POST", "/dashboard/security/totp", url.Values{"_csrf": {token}, "code": {"000000"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, wrong.status)
	code := func() string {
		c, err := totp.GenerateCode(secret, clock())
		require.NoError(t, err)
		return c
	}
	on := b.do("POST", "/dashboard/security/totp", url.Values{"_csrf": {token}, "code": {code()}}, nil)
	require.Equal(t, http.StatusOK, on.status, on.body)
	var recovery []string
	on.doc.Find(`[data-testid="recovery-code"]`).Each(func(_ int, sel *goquery.Selection) { recovery = append(recovery, sel.Text()) })
	require.Len(t, recovery, 10)
	require.Zero(t, b.do("GET", "/dashboard/security", nil, nil).doc.Find(`[data-testid="recovery-code"]`).Length(), "shown once")

	// Sign-in asks for the second factor.
	other := newBrowser(t, s)
	r := other.login("dona@example.com", "correct-horse-battery")
	require.Equal(t, "/login/verify", r.header.Get("Location"))
	require.Equal(t, "/login", other.do("GET", "/dashboard/payments", nil, nil).header.Get("Location"), "not signed in yet")
	verifyToken := other.csrf("/login/verify")
	bad := other.do("POST", "/login/verify", url.Values{"_csrf": {verifyToken}, "code": {"123456"}}, nil)
	require.Equal(t, http.StatusUnauthorized, bad.status, bad.body)
	require.Equal(t, http.StatusUnauthorized, other.do("POST", "/login/verify", url.Values{"_csrf": {verifyToken}, "code": {code()}}, nil).status,
		"the code that enrolled the app was used")
	advance(30 * time.Second)
	require.Equal(t, http.StatusSeeOther, other.do("POST", "/login/verify", url.Values{"_csrf": {verifyToken}, "code": {code()}}, nil).status)
	require.Equal(t, http.StatusOK, other.do("GET", "/dashboard/payments", nil, nil).status)

	// A recovery code signs in once.
	third := newBrowser(t, s)
	third.login("dona@example.com", "correct-horse-battery")
	require.Equal(t, http.StatusSeeOther, third.do("POST", "/login/verify", url.Values{"_csrf": {third.csrf("/login/verify")}, "code": {recovery[0]}}, nil).status)
	fourth := newBrowser(t, s)
	fourth.login("dona@example.com", "correct-horse-battery")
	require.Equal(t, http.StatusUnauthorized, fourth.do("POST", "/login/verify", url.Values{"_csrf": {fourth.csrf("/login/verify")}, "code": {recovery[0]}}, nil).status)

	// Five minutes on, a withdrawal asks for the factor again and moves nothing.
	advance(6 * time.Minute)
	withdraw := url.Values{"_csrf": {b.csrf("/dashboard/balance")}, "amount": {"10,00"}, "pix_key": {"a@example.com"}}
	ask := b.do("POST", "/dashboard/balance/withdrawals", withdraw, map[string]string{"Referer": s.URL + "/dashboard/balance"})
	require.Equal(t, http.StatusSeeOther, ask.status, ask.body)
	require.Equal(t, "/dashboard/verify?next=%2Fdashboard%2Fbalance", ask.header.Get("Location"))
	var withdrawals int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM withdrawals").Scan(context.Background(), &withdrawals))
	require.Zero(t, withdrawals)
	stepUp := b.do("GET", "/dashboard/verify?next=%2Fdashboard%2Fbalance", nil, nil)
	require.Equal(t, http.StatusOK, stepUp.status)
	done := b.do("POST", "/dashboard/verify", url.Values{"_csrf": {b.csrf("/dashboard/verify")}, "code": {code()}, "next": {"/dashboard/balance"}}, nil)
	require.Equal(t, http.StatusSeeOther, done.status)
	require.Equal(t, "/dashboard/balance", done.header.Get("Location"))
	back := b.do("GET", "/dashboard/balance", nil, nil)
	require.Equal(t, "10,00", back.doc.Find(`[data-testid="withdraw-form"] #amount`).AttrOr("value", ""), "the form as they filled it")
	require.Equal(t, "a@example.com", back.doc.Find(`[data-testid="withdraw-form"] [name="pix_key"]`).AttrOr("value", ""))
	require.Equal(t, "", b.do("GET", "/dashboard/balance", nil, nil).doc.Find(`[data-testid="withdraw-form"] #amount`).AttrOr("value", ""), "once")
	require.Equal(t, http.StatusSeeOther, b.confirm("/dashboard/balance/withdrawals", withdraw, nil).status)
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM withdrawals").Scan(context.Background(), &withdrawals))
	require.Equal(t, 1, withdrawals)
	// Canceling a subscription cannot be undone: it asks for the factor
	// again too, and changes nothing without it.
	sub := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: map[string]any{
		"payer": map[string]any{"name": "Ana", "document": "529.982.247-25"}, "contract": "C-1", "interval": "monthly",
		"start_date": time.Now().AddDate(0, 0, 3).Format(time.DateOnly), "amount_cents": 1000, "journey": "payer_bank_request"}}).JSON(t)
	advance(6 * time.Minute)
	subPage := "/dashboard/subscriptions/" + sub["id"].(string)
	cancel := b.confirm(subPage+"/cancel", url.Values{"_csrf": {b.csrf(subPage)}}, map[string]string{"Referer": s.URL + subPage})
	require.Equal(t, http.StatusSeeOther, cancel.status, cancel.body)
	require.Equal(t, "/dashboard/verify?next="+url.QueryEscape(subPage), cancel.header.Get("Location"))
	require.Equal(t, "awaiting_authorization", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/" + sub["id"].(string), Key: s.TestKey}).JSON(t)["status"])
	// "next" stays on this site's dashboard.
	evil := b.do("POST", "/dashboard/verify", url.Values{"_csrf": {b.csrf("/dashboard/verify")}, "code": {recovery[1]}, "next": {"//evil.example/x"}}, nil)
	require.Equal(t, "/dashboard", evil.header.Get("Location"))

	secrets := map[string]string{"the TOTP secret": secret, "the password": "correct-horse-battery", "the API key": s.TestKey,
		"the session id": b.cookie("/dashboard", "payments_session").Value}
	for i, code := range recovery {
		secrets["recovery code "+string(rune('0'+i))] = code
	}
	requireNoSecrets(t, s, secrets)
}

// enrollTOTP turns on an authenticator app for the person signed in on b,
// through the security page, and returns its secret: their second factor
// is then proved in that session for the next 5 minutes.
func enrollTOTP(t *testing.T, s *webtest.Server, b *browser) string {
	t.Helper()
	token := b.csrf("/dashboard/security")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/security/totp/start", url.Values{"_csrf": {token}}, nil).status)
	secret := b.do("GET", "/dashboard/security", nil, nil).doc.Find(`[data-testid="totp-secret"]`).Text()
	code, err := totp.GenerateCode(secret, s.Store.Now())
	require.NoError(t, err)
	on := b.do("POST", "/dashboard/security/totp", url.Values{"_csrf": {token}, "code": {code}}, nil)
	require.Equal(t, http.StatusOK, on.status, on.body)
	return secret
}

// Step-up keeps any typed form, not only a withdrawal's: an invitation and
// a live restricted key whose second factor went stale come back, after
// the code, as they were typed; nothing was made before it.
func TestStepUpReturnsToTheFormAsTyped(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := webtest.New(t, webtest.WithClock(clock))
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	secret := enrollTOTP(t, s, b)
	mu.Lock()
	now = now.Add(6 * time.Minute)
	mu.Unlock()
	count := func(table string) int {
		var n int
		require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &n))
		return n
	}
	keysBefore, invitationsBefore := count("api_keys"), count("email_tokens")
	prove := func(page string) {
		code, err := totp.GenerateCode(secret, clock())
		require.NoError(t, err)
		done := b.do("POST", "/dashboard/verify", url.Values{"_csrf": {b.csrf("/dashboard/verify")}, "code": {code}, "next": {page}}, nil)
		require.Equal(t, page, done.header.Get("Location"))
	}

	invite := url.Values{"_csrf": {b.csrf("/dashboard/team")}, "email": {"fin@example.com"}, "role": {store.RoleFinance}}
	ask := b.do("POST", "/dashboard/team/invitations", invite, map[string]string{"Referer": s.URL + "/dashboard/team"})
	require.Equal(t, "/dashboard/verify?next=%2Fdashboard%2Fteam", ask.header.Get("Location"), ask.body)
	require.Equal(t, invitationsBefore, count("email_tokens"), "no invitation before the code")
	prove("/dashboard/team")
	team := b.do("GET", "/dashboard/team", nil, nil).doc
	require.Equal(t, "fin@example.com", team.Find(`[data-testid="invite-email"]`).AttrOr("value", ""))
	require.Equal(t, store.RoleFinance, team.Find(`[data-testid="invite-role"] option[selected]`).AttrOr("value", ""))

	mu.Lock()
	now = now.Add(6 * time.Minute)
	mu.Unlock()
	key := url.Values{"_csrf": {b.csrf("/dashboard/api-keys")}, "restricted": {"1"}, "mode": {"live"}, "name": {"Loja"},
		"perm_payments": {"write"}, "allowed_ips": {"203.0.113.7"}}
	ask = b.do("POST", "/dashboard/api-keys", key, map[string]string{"Referer": s.URL + "/dashboard/api-keys"})
	require.Equal(t, "/dashboard/verify?next=%2Fdashboard%2Fapi-keys", ask.header.Get("Location"), ask.body)
	require.Equal(t, keysBefore, count("api_keys"), "no key before the code")
	prove("/dashboard/api-keys")
	keys := b.do("GET", "/dashboard/api-keys", nil, nil).doc
	require.True(t, keys.Find(`[data-testid="restricted-key"]`).Is("[open]"), "the restricted form is open")
	require.Equal(t, "Loja", keys.Find(`[data-testid="rk-name"]`).AttrOr("value", ""))
	require.Equal(t, "write", keys.Find(`[data-testid="perm-payments"] option[selected]`).AttrOr("value", ""))
	require.Equal(t, "203.0.113.7", keys.Find(`[data-testid="rk-ips"]`).AttrOr("value", ""))
	again := b.do("GET", "/dashboard/api-keys", nil, nil).doc
	require.Equal(t, "", again.Find(`[data-testid="rk-name"]`).AttrOr("value", ""), "once")
}

// The step-up page offers exactly the factors the person has: a passkey
// alone is asked for without a code box; with an app as well, the passkey
// comes first and the code box after (issue 52).
func TestStepUpOffersTheFactorsThePersonHas(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithLocalhost())
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	u, err := s.Store.UserByEmail(context.Background(), "dona@example.com")
	require.NoError(t, err)
	require.NoError(t, s.Store.AddPasskey(context.Background(), u.ID, []byte("credential-1"), "Notebook", json.RawMessage(`{}`)))
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	verify := b.do("GET", "/login/verify", nil, nil)
	require.Equal(t, http.StatusOK, verify.status, verify.body)
	require.Equal(t, 1, verify.doc.Find(`[data-testid="use-passkey"]`).Length())
	require.Zero(t, verify.doc.Find(`input[name="code"]`).Length(), "no code box for a passkey alone")
	require.Equal(t, "Confirme com a sua chave de acesso.", verify.doc.Find(`[data-testid="verify-lead"]`).Text())

	_, err = s.DB.NewRaw(`UPDATE users SET totp_enabled_at = now() WHERE id = ?`, u.ID).Exec(context.Background())
	require.NoError(t, err)
	both := b.do("GET", "/login/verify", nil, nil)
	require.Equal(t, 1, both.doc.Find(`input[name="code"]`).Length())
	html, err := both.doc.Find(`[data-testid="verify-form"]`).Html()
	require.NoError(t, err)
	require.Less(t, strings.Index(html, `data-testid="use-passkey"`), strings.Index(html, `name="code"`), "the passkey first")
}

// Removing a passkey is confirmed first, saying so when it is the last
// second factor, and then asks for a fresh second factor: one click
// removes nothing (issue 52).
func TestRemovingAPasskeyIsConfirmed(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithLocalhost())
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	u, err := s.Store.UserByEmail(context.Background(), "dona@example.com")
	require.NoError(t, err)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	require.NoError(t, s.Store.AddPasskey(context.Background(), u.ID, []byte("credential-1"), "Notebook", json.RawMessage(`{}`)))
	remove := "/dashboard/security/passkeys/" + base64.RawURLEncoding.EncodeToString([]byte("credential-1")) + "/remove"
	ask := b.do("POST", remove, url.Values{"_csrf": {b.csrf("/dashboard/security")}}, nil)
	require.Equal(t, http.StatusOK, ask.status, ask.body)
	require.Contains(t, ask.body, "É o seu único segundo fator")
	require.Contains(t, ask.body, "Notebook")
	keys, err := s.Store.Passkeys(context.Background(), u.ID)
	require.NoError(t, err)
	require.Len(t, keys, 1, "asking removes nothing")
	sure := b.do("POST", remove, url.Values{"_csrf": {b.csrf("/dashboard/security")}, "confirmed": {"1"}}, nil)
	require.NotEqual(t, http.StatusOK, sure.status)
	keys, err = s.Store.Passkeys(context.Background(), u.ID)
	require.NoError(t, err)
	require.Len(t, keys, 1, "not without a fresh second factor")
}
