package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// One person in two accounts switches between them; a role change holds
// from their next request (their sessions end) and so does a removal; the
// last owner stays.
func TestTeamSwitchRoleChangeAndRemoval(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	other, _, _ := s.NewAccount("Loja Dois", "dois@example.com")
	ctx := context.Background()
	owner, err := s.Store.CreateUser(ctx, "dona@example.com", "correct-horse-battery", store.RoleOwner, s.Account.ID)
	require.NoError(t, err)
	ana, err := s.Store.CreateUser(ctx, "ana@example.com", "correct-horse-battery", store.RoleFinance, s.Account.ID)
	require.NoError(t, err)
	require.NoError(t, s.Store.AddMember(ctx, other.ID, ana.ID, store.RoleViewer))

	b := newBrowser(t, s)
	b.login("ana@example.com", "correct-horse-battery")
	home := b.do("GET", "/dashboard/balance", nil, nil)
	require.Equal(t, 1, home.doc.Find(`[data-testid="withdraw-form"]`).Length(), "finance in the first account")
	options := home.doc.Find(`#account-switch option`)
	require.Equal(t, 2, options.Length())
	r := b.do("POST", "/dashboard/account", url.Values{"_csrf": {b.csrf("/dashboard/balance")}, "account": {other.ID}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	there := b.do("GET", "/dashboard/balance", nil, nil)
	require.Zero(t, there.doc.Find(`[data-testid="withdraw-form"]`).Length(), "a viewer in the second")
	require.Equal(t, "Loja Dois", there.doc.Find(`#account-switch option[selected]`).Text())
	stranger, _, _ := s.NewAccount("Loja Três", "tres@example.com")
	require.Equal(t, http.StatusNotFound, b.do("POST", "/dashboard/account", url.Values{"_csrf": {b.csrf("/dashboard/balance")}, "account": {stranger.ID}}, nil).status)

	// The owner makes Ana a viewer in the first account: her session ends.
	o := newBrowser(t, s)
	o.login("dona@example.com", "correct-horse-battery")
	token := o.csrf("/dashboard/team")
	require.Equal(t, http.StatusSeeOther, o.do("POST", "/dashboard/team/members/"+ana.ID+"/role", url.Values{"_csrf": {token}, "role": {"viewer"}}, nil).status)
	require.Equal(t, "/login", b.do("GET", "/dashboard/balance", nil, nil).header.Get("Location"))
	b.login("ana@example.com", "correct-horse-battery")
	require.Zero(t, b.do("GET", "/dashboard/balance", nil, nil).doc.Find(`[data-testid="withdraw-form"]`).Length(), "a viewer now")

	// Removed: out, and signs in to the account she still has.
	require.Equal(t, http.StatusSeeOther, o.confirm("/dashboard/team/members/"+ana.ID+"/remove", url.Values{"_csrf": {token}}, nil).status)
	require.Equal(t, "/login", b.do("GET", "/dashboard/balance", nil, nil).header.Get("Location"))
	b.login("ana@example.com", "correct-horse-battery")
	require.Equal(t, http.StatusOK, b.do("GET", "/dashboard/balance", nil, nil).status)
	require.Equal(t, "Loja Dois", accountOf(t, s, ana.ID), "she signs in to the account she still has")

	// The last owner cannot be demoted or removed.
	last := o.do("POST", "/dashboard/team/members/"+owner.ID+"/role", url.Values{"_csrf": {token}, "role": {"admin"}}, nil)
	require.Equal(t, http.StatusSeeOther, last.status)
	require.Contains(t, o.do("GET", "/dashboard/team", nil, nil).doc.Find(`[data-testid="notice"]`).Text(), "proprietário")
}

// accountOf is the name of the account user id signs in to first.
func accountOf(t *testing.T, s *webtest.Server, userID string) string {
	t.Helper()
	u, err := s.Store.UserByID(context.Background(), userID)
	require.NoError(t, err)
	if u.AccountID == nil {
		return ""
	}
	a, err := s.Store.Account(context.Background(), *u.AccountID)
	require.NoError(t, err)
	return a.Name
}
