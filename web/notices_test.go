package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/web/webtest"
)

// A webhook the dispatcher disables (its endpoint answered 410 Gone) is
// mailed to the account's owners and admins, in their language, with the
// way back; developers and viewers get nothing.
func TestDisabledWebhookIsMailedToOwnersAndAdmins(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithMail())
	tag := strings.ToLower(pix.RandomBase62(8))
	people := map[string]string{"dona-" + tag + "@example.com": store.RoleOwner, "admin-" + tag + "@example.com": store.RoleAdmin,
		"dev-" + tag + "@example.com": store.RoleDeveloper}
	for email, role := range people {
		_, err := s.Store.CreateUser(context.Background(), email, "correct-horse-battery", role, s.Account.ID)
		require.NoError(t, err)
	}
	gone := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) })
	hook, _ := s.CreateWebhook(gone.URL, map[string]any{"name": "ERP antigo", "events": []string{"payment.created"}})
	s.CreatePayment(map[string]any{"amount_cents": 100})
	s.Dispatcher.RunOnce(context.Background(), 10)
	w := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + hook, Key: s.TestKey}).JSON(t)
	require.Equal(t, false, w["enabled"])

	for email, role := range people {
		if role == store.RoleDeveloper {
			continue
		}
		mail := s.Mail(email, "Webhook desativado: ERP antigo")
		require.Contains(t, mail.Text, gone.URL)
		require.Contains(t, mail.Text, s.URL+"/dashboard/webhooks/"+hook)
	}
	require.Zero(t, s.MailsTo("dev-"+tag+"@example.com"))
}

// Too many wrong passwords for an e-mail: sign-in refuses for a while and
// its person is told by e-mail, once per quarter hour.
func TestRepeatedSignInFailuresAreMailed(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithMail())
	tag := strings.ToLower(pix.RandomBase62(8))
	email := "dona-" + tag + "@example.com"
	ownerFor(t, s, s.Account.ID, email)
	b := newBrowser(t, s)
	// Counted per minute-long window: enough tries that one window holds
	// more than its 10 however the tries straddle windows, then a few more.
	throttled := 0
	for i := 0; i < 30 && throttled < 3; i++ {
		r := b.do("POST", "/login", url.Values{"_csrf": {b.csrf("/login")}, "email": {email}, "password": {"errada-errada-errada"}}, nil)
		if r.status == http.StatusTooManyRequests {
			throttled++
		}
	}
	require.Equal(t, 3, throttled)
	mail := s.Mail(email, "Tentativas de acesso recusadas")
	require.Contains(t, mail.Text, "127.0.0.1")
	require.Equal(t, 1, s.MailsTo(email), "once, however many refusals")
}

// The new-sign-in e-mail gives the time in the account's zone (Brasília
// by default, not UTC), the browser as people name it, and the page where
// sessions are ended (Segurança), linked.
func TestNewSignInMailReadsAsPeopleDo(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 17, 51, 0, 0, time.UTC)
	s := webtest.New(t, webtest.WithMail(), webtest.WithClock(func() time.Time { return at }))
	email := "dona-" + strings.ToLower(pix.RandomBase62(8)) + "@example.com"
	ownerFor(t, s, s.Account.ID, email)
	b := newBrowser(t, s)
	token := b.csrf("/login")
	r := b.do("POST", "/login", url.Values{"_csrf": {token}, "email": {email}, "password": {"correct-horse-battery"}},
		map[string]string{"User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"})
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	mail := s.Mail(email, "Novo acesso à sua conta")
	require.Contains(t, mail.Text, "28/11/2026 14:51 (America/Sao_Paulo)", "Brasília's time, named")
	require.NotContains(t, mail.Text, "UTC")
	require.Contains(t, mail.Text, "Navegador: Firefox · Windows")
	require.NotContains(t, mail.Text, "Gecko/20100101")
	require.Contains(t, mail.Text, "Segurança: "+s.URL+"/dashboard/security")
}
