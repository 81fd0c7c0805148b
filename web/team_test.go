package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/web/webtest"
)

// path is the path and query of a link a mail carries.
func path(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	return u.RequestURI()
}

// A business signs up, verifies its e-mail from the mail the catcher
// caught, invites a developer who accepts from theirs; the developer
// builds (a webhook) but moves no money; a password reset ends every
// other session; the audit trail names each step's actor and door.
func TestSignUpVerifyInviteAndReset(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithMail())
	tag := strings.ToLower(pix.RandomBase62(8))
	ownerEmail, devEmail := "dona-"+tag+"@example.com", "dev-"+tag+"@example.com"

	owner := newBrowser(t, s)
	form := url.Values{"_csrf": {owner.csrf("/signup")}, "business_name": {"Padaria Pão Quente"}, "document": {"11.222.333/0001-81"},
		"name": {"Dona Maria"}, "email": {ownerEmail}}
	for _, weak := range []string{"curta", "senha123456789", "passwordpassword", "dona-" + tag + "-segura"} {
		form.Set("password", weak)
		r := owner.do("POST", "/signup", form, nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.status, weak)
		require.NotEmpty(t, r.doc.Find(`[data-testid="password-error"]`).Text(), weak)
	}
	form.Set("document", "12.ABC.345/01DE-36") // the Receita's alphanumeric example, a check digit off
	form.Set("password", "pão de queijo quentinho")
	r := owner.do("POST", "/signup", form, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="document-error"]`).Text(), "CNPJ")
	form.Set("document", "12.abc.345/01de-35")
	r = owner.do("POST", "/signup", form, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	require.Equal(t, "/signup/sent", r.header.Get("Location"))
	sent := owner.do("GET", "/signup/sent", nil, nil)
	require.Contains(t, sent.doc.Find(`[data-testid="message-text"]`).Text(), ownerEmail, "where the link went")

	user, err := s.Store.UserByEmail(context.Background(), ownerEmail)
	require.NoError(t, err)
	require.Nil(t, user.EmailVerifiedAt)
	acct, err := s.Store.Account(context.Background(), *user.AccountID)
	require.NoError(t, err)
	require.False(t, acct.LiveEnabled(), "live mode waits for the platform's staff")
	require.Equal(t, "12ABC34501DE35", *acct.Document, "an alphanumeric CNPJ, stored in upper case")

	verify := s.Mail(ownerEmail, "Confirme seu e-mail")
	link := verify.Link(t, s.URL+"/verify-email?token=")
	done := owner.do("GET", path(t, link), nil, nil)
	require.Equal(t, http.StatusSeeOther, done.status, "the link signs its person in")
	require.Equal(t, "/dashboard", done.header.Get("Location"))
	home := owner.do("GET", "/dashboard", nil, nil)
	require.Equal(t, http.StatusOK, home.status, "signed in, test mode usable at once")
	require.Contains(t, home.doc.Find(`[data-testid="notice"]`).Text(), "E-mail confirmado", "the notice shows where the person lands: %s", home.body)
	require.Zero(t, home.doc.Find(`[data-testid="unconfirmed-email"]`).Length())
	require.Equal(t, http.StatusGone, newBrowser(t, s).do("GET", path(t, link), nil, nil).status, "single use")
	user, err = s.Store.UserByEmail(context.Background(), ownerEmail)
	require.NoError(t, err)
	require.NotNil(t, user.EmailVerifiedAt)

	// The owner invites a developer.
	token := owner.csrf("/dashboard/team")
	r = owner.do("POST", "/dashboard/team/invitations", url.Values{"_csrf": {token}, "email": {devEmail}, "role": {"developer"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	invite := s.Mail(devEmail, "Convite para Padaria Pão Quente")
	require.Contains(t, invite.Text, "Desenvolvedor")
	accept := path(t, invite.Link(t, s.URL+"/invitations/accept?token="))
	dev := newBrowser(t, s)
	page := dev.do("GET", accept, nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.doc.Find(`[data-testid="invite-lead"]`).Text(), ownerEmail)
	r = dev.do("POST", "/invitations/accept", url.Values{"_csrf": {page.doc.Find(`input[name="_csrf"]`).AttrOr("value", "")},
		"token": {page.doc.Find(`input[name="token"]`).AttrOr("value", "")}, "name": {"Dev"}, "password": {"um teclado mecânico barulhento"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	require.Equal(t, http.StatusGone, newBrowser(t, s).do("GET", accept, nil, nil).status, "an invitation is used once")

	// The developer builds: a webhook, yes; money out, no.
	token = dev.csrf("/dashboard/webhooks/new")
	r = dev.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	_, key, err := s.Store.CreateAPIKey(context.Background(), acct.ID, false, store.NewAPIKey{Name: "test"})
	require.NoError(t, err)
	paid := s.Fund(key, 2_000)
	detail := dev.do("GET", "/dashboard/payments/"+paid, nil, nil)
	require.Equal(t, http.StatusOK, detail.status)
	require.Zero(t, detail.doc.Find(`[data-testid="refund-form"]`).Length(), "no refund offered to a developer")
	forged := dev.do("POST", "/dashboard/payments/"+paid+"/refund", url.Values{"_csrf": {token}, "amount": {"20,00"}}, nil)
	require.Equal(t, http.StatusForbidden, forged.status, forged.body)
	require.Equal(t, "paid", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + paid, Key: key}).JSON(t)["status"])

	// A reset ends every other session of the developer's.
	other := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, other.login(devEmail, "um teclado mecânico barulhento").status)
	require.Equal(t, http.StatusOK, other.do("GET", "/dashboard/payments", nil, nil).status)
	forgot := newBrowser(t, s)
	r = forgot.do("POST", "/password/forgot", url.Values{"_csrf": {forgot.csrf("/password/forgot")}, "email": {devEmail}}, nil)
	require.Equal(t, http.StatusOK, r.status)
	same := forgot.do("POST", "/password/forgot", url.Values{"_csrf": {forgot.csrf("/password/forgot")}, "email": {"ninguem-" + tag + "@example.com"}}, nil)
	require.Equal(t, r.doc.Find(`[data-testid="form-done"]`).Length(), same.doc.Find(`[data-testid="form-done"]`).Length(), "the same answer for no one")
	reset := path(t, s.Mail(devEmail, "Redefinir sua senha").Link(t, s.URL+"/password/reset?token="))
	resetPage := forgot.do("GET", reset, nil, nil)
	require.Equal(t, http.StatusOK, resetPage.status)
	r = forgot.do("POST", "/password/reset", url.Values{"_csrf": {resetPage.doc.Find(`input[name="_csrf"]`).AttrOr("value", "")},
		"token": {resetPage.doc.Find(`input[name="token"]`).AttrOr("value", "")}, "password": {"outra frase bem comprida agora"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	for name, b := range map[string]*browser{"the other session": other, "the accepting session": dev} {
		gone := b.do("GET", "/dashboard/payments", nil, nil)
		require.Equal(t, http.StatusSeeOther, gone.status, name)
		require.Equal(t, "/login", gone.header.Get("Location"), name)
	}
	require.Equal(t, http.StatusOK, forgot.do("GET", "/dashboard/payments", nil, nil).status, "the resetting browser is signed in")
	require.Equal(t, http.StatusGone, forgot.do("GET", reset, nil, nil).status, "a reset link is used once")
	requireNoSecrets(t, s, map[string]string{
		"the verification token": strings.SplitN(link, "token=", 2)[1], "the invitation token": strings.SplitN(accept, "token=", 2)[1],
		"the reset token": strings.SplitN(reset, "token=", 2)[1], "the owner's password": "pão de queijo quentinho",
		"the developer's passwords": "um teclado mecânico barulhento", "the new password": "outra frase bem comprida agora",
		"the owner's session id": owner.cookie("/dashboard", "payments_session").Value, "the API key": key,
	})

	// The trail: each step, its actor and door.
	type row struct {
		Action string `bun:"action"`
		Actor  string `bun:"actor"`
		Door   string `bun:"door"`
	}
	var trail []row
	require.NoError(t, s.DB.NewRaw(`SELECT action, actor, door FROM audit_trail WHERE account_id = ? AND action <> 'user.signed_in' ORDER BY id`,
		acct.ID).Scan(context.Background(), &trail))
	devUser, err := s.Store.UserByEmail(context.Background(), devEmail)
	require.NoError(t, err)
	ownerActor, devActor := store.ActorUser(user.ID).ID, store.ActorUser(devUser.ID).ID
	require.Equal(t, []row{
		{"account.created", ownerActor, "dashboard"},
		{"user.email_verified", ownerActor, "dashboard"},
		{"member.invited", ownerActor, "dashboard"},
		{"member.joined", devActor, "dashboard"},
		{"webhook.created", devActor, "dashboard"},
		{"payment.created", "api_key:" + keyID(t, s, key), "api"},
		{"payment.paid", "api_key:" + keyID(t, s, key), "api"},
		{"user.password_reset_requested", "visitor", "dashboard"},
		{"user.password_reset", devActor, "dashboard"},
	}, trail)
}

func keyID(t *testing.T, s *webtest.Server, secret string) string {
	t.Helper()
	k, err := s.Store.APIKeyBySecret(context.Background(), secret)
	require.NoError(t, err)
	return k.ID
}
