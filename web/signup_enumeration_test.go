package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

// Signing up with an e-mail that has an account answers exactly as with a
// new one (status, where it leads, the page there), so no one learns
// which e-mails are customers; the owner of that address is e-mailed that
// someone tried, once however often they try, and nothing of theirs
// changes. The new address gets its link, which signs its person in.
func TestSignUpRevealsNothingAboutTakenEmails(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithMail())
	tag := strings.ToLower(pix.RandomBase62(8))
	taken, fresh := "dona-"+tag+"@example.com", "novo-"+tag+"@example.com"
	ownerFor(t, s, s.Account.ID, taken)
	before, err := s.Store.UserByEmail(context.Background(), taken)
	require.NoError(t, err)

	signUp := func(email string) (page, page) {
		b := newBrowser(t, s)
		form := url.Values{"_csrf": {b.csrf("/signup")}, "business_name": {"Padaria Pão Quente"}, "document": {"11.222.333/0001-81"},
			"name": {"Dona Maria"}, "email": {email}, "password": {"pão de queijo quentinho"}}
		r := b.do("POST", "/signup", form, nil)
		return r, b.do("GET", r.header.Get("Location"), nil, nil)
	}
	takenAnswer, takenPage := signUp(taken)
	freshAnswer, freshPage := signUp(fresh)
	require.Equal(t, http.StatusSeeOther, takenAnswer.status, takenAnswer.body)
	require.Equal(t, freshAnswer.status, takenAnswer.status)
	require.Equal(t, freshAnswer.header.Get("Location"), takenAnswer.header.Get("Location"))
	require.Equal(t, freshAnswer.body, takenAnswer.body)
	require.Equal(t, freshPage.status, takenPage.status)
	same := func(p page, email string) string {
		return strings.ReplaceAll(p.doc.Find("main").Text(), email, "<e-mail>")
	}
	require.Equal(t, same(freshPage, fresh), same(takenPage, taken), "the page after it says the same, but for the address")
	require.Contains(t, takenPage.doc.Find(`[data-testid="message-text"]`).Text(), taken)

	notice := s.Mail(taken, "Tentativa de criar conta")
	require.Contains(t, notice.Text, s.URL+"/password/forgot")
	signUp(taken)
	require.Equal(t, 1, s.MailsTo(taken), "told once, not per try")
	after, err := s.Store.UserByEmail(context.Background(), taken)
	require.NoError(t, err)
	require.Equal(t, before.PasswordHash, after.PasswordHash, "nothing of theirs changed")
	require.Equal(t, *before.AccountID, *after.AccountID)
	var accounts int
	require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM accounts WHERE name = 'Padaria Pão Quente'`).Scan(context.Background(), &accounts))
	require.Equal(t, 1, accounts, "only the new address made an account")

	link := s.Mail(fresh, "Confirme seu e-mail").Link(t, s.URL+"/verify-email?token=")
	b := newBrowser(t, s)
	in := b.do("GET", strings.TrimPrefix(link, s.URL), nil, nil)
	require.Equal(t, http.StatusSeeOther, in.status)
	require.Equal(t, http.StatusOK, b.do("GET", "/dashboard/payments", nil, nil).status, "the link signed its person in")
}

// A person who signs in before confirming their e-mail is reminded on
// every page, and can have the link sent again (once a minute); the
// reminder ends with the confirmation.
func TestAnUnconfirmedEmailIsRemindedOnEveryPage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithMail())
	tag := strings.ToLower(pix.RandomBase62(8))
	email := "nova-" + tag + "@example.com"
	b := newBrowser(t, s)
	form := url.Values{"_csrf": {b.csrf("/signup")}, "business_name": {"Sorveteria"}, "document": {"529.982.247-25"},
		"name": {"Ana"}, "email": {email}, "password": {"sorvete de goiaba gelado"}}
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/signup", form, nil).status)
	require.Equal(t, http.StatusSeeOther, b.login(email, "sorvete de goiaba gelado").status)
	for _, path := range []string{"/dashboard", "/dashboard/payments", "/dashboard/team", "/dashboard/api-keys", "/dashboard/security"} {
		p := b.do("GET", path, nil, nil)
		require.Equal(t, http.StatusOK, p.status, path)
		require.Contains(t, p.doc.Find(`[data-testid="unconfirmed-email"]`).Text(), email, path)
	}
	first := s.Mail(email, "Confirme seu e-mail").Link(t, s.URL+"/verify-email?token=")
	s.Mail(email, "Novo acesso") // the sign-in from a new browser
	mails := s.MailsTo(email)
	token := b.csrf("/dashboard/payments")
	soon := b.do("POST", "/dashboard/email/resend", url.Values{"_csrf": {token}}, map[string]string{"Referer": s.URL + "/dashboard/payments"})
	require.Equal(t, http.StatusSeeOther, soon.status)
	require.Equal(t, "/dashboard/payments", soon.header.Get("Location"))
	require.Contains(t, b.do("GET", "/dashboard/payments", nil, nil).doc.Find(`[data-testid="notice"]`).Text(), "espere um minuto")
	require.Equal(t, mails, s.MailsTo(email), "no second link within the minute")

	done := b.do("GET", strings.TrimPrefix(first, s.URL), nil, nil)
	require.Equal(t, http.StatusSeeOther, done.status)
	require.Zero(t, b.do("GET", "/dashboard/payments", nil, nil).doc.Find(`[data-testid="unconfirmed-email"]`).Length())
}
