package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

// A platform's owner opens a subaccount and invites its own owner from its
// Equipe page; they accept, and see that account only: its pages say so,
// with no way to the platform, and no subaccounts of their own.
func TestASubaccountsOwnerIsInvitedAndSeesOnlyIt(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithMail())
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Body: map[string]any{"name": "Padaria Pão Quente",
		"document": "12.ABC.345/01DE-35", "email": "padaria@example.com", "pix_key": "padaria@example.com"}})
	require.Equal(t, http.StatusCreated, r.Status)
	seller := r.JSON(t)["id"].(string)

	owner := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, owner.login("dona@example.com", "correct-horse-battery").status)
	opened := owner.do("POST", "/dashboard/account", url.Values{"_csrf": {owner.csrf("/dashboard/subaccounts")}, "account": {seller}}, nil)
	require.Equal(t, http.StatusSeeOther, opened.status, opened.body)
	// Mailpit is every test's: an address of this run's own.
	padeiroEmail := "padeiro-" + strings.ToLower(pix.RandomBase62(8)) + "@example.com"
	invited := owner.do("POST", "/dashboard/team/invitations", url.Values{"_csrf": {owner.csrf("/dashboard/team")},
		"email": {padeiroEmail}, "role": {"owner"}}, nil)
	require.Equal(t, http.StatusSeeOther, invited.status, invited.body)

	invite := s.Mail(padeiroEmail, "Convite para Padaria Pão Quente")
	accept := path(t, invite.Link(t, s.URL+"/invitations/accept?token="))
	padeiro := newBrowser(t, s)
	page := padeiro.do("GET", accept, nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	done := padeiro.do("POST", "/invitations/accept", url.Values{"_csrf": {page.doc.Find(`input[name="_csrf"]`).AttrOr("value", "")},
		"token": {page.doc.Find(`input[name="token"]`).AttrOr("value", "")}, "name": {"Padeiro"}, "password": {"um forno quente de pedra"}}, nil)
	require.Equal(t, http.StatusSeeOther, done.status, done.body)

	home := padeiro.do("GET", "/dashboard/payments", nil, nil)
	require.Equal(t, http.StatusOK, home.status)
	require.Contains(t, home.doc.Find(`[data-testid="subaccount-banner"]`).Text(), "Padaria Pão Quente")
	require.Zero(t, home.doc.Find(`[data-testid="back-to-platform"]`).Length())
	require.Zero(t, home.doc.Find(`a[href="/dashboard/subaccounts"]`).Length())
	away := padeiro.do("POST", "/dashboard/account", url.Values{"_csrf": {padeiro.csrf("/dashboard/payments")}, "account": {s.Account.ID}}, nil)
	require.Equal(t, http.StatusNotFound, away.status, "the platform is not theirs")
}
