package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/operations"
	"payments/store"
	"payments/web/webtest"
)

// An account that signed up works in test mode at once; its live mode
// refuses (403 live_mode_not_activated) until support staff turn it on
// from their console, which the trail records.
func TestLiveModeWaitsForStaff(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	ops := &operations.Operations{Store: s.Store, LiveMode: true}
	_, acct, err := ops.SignUpBusiness(context.Background(), store.Actor{ID: "visitor", Door: store.DoorDashboard}, operations.SignUp{
		BusinessName: "Padaria", Document: "529.982.247-25", Name: "Maria", Email: "maria@example.com", Password: "pão de queijo quentinho"})
	require.NoError(t, err)
	_, testKey, err := s.Store.CreateAPIKey(context.Background(), acct.ID, false, store.NewAPIKey{})
	require.NoError(t, err)
	_, liveKey, err := s.Store.CreateAPIKey(context.Background(), acct.ID, true, store.NewAPIKey{})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: testKey,
		Body: map[string]any{"amount_cents": 100}}).Status)
	refused := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: liveKey, Body: map[string]any{"amount_cents": 100}})
	require.Equal(t, http.StatusForbidden, refused.Status, "%s", refused.Body)
	require.Equal(t, "live_mode_not_activated", refused.ErrorCode(t))

	_, err = s.Store.CreateUser(context.Background(), "ajuda@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	b := newBrowser(t, s)
	b.login("ajuda@example.com", "correct-horse-battery")
	console := b.do("GET", "/dashboard/support", nil, nil)
	require.Equal(t, 1, console.doc.Find(`[data-testid="awaiting-account"][data-account-id="`+acct.ID+`"]`).Length())
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/support/accounts/"+acct.ID+"/activate-live",
		url.Values{"_csrf": {b.csrf("/dashboard/support")}}, nil).status)
	require.Zero(t, b.do("GET", "/dashboard/support", nil, nil).doc.Find(`[data-testid="awaiting-account"]`).Length())

	made := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: liveKey, Body: map[string]any{"amount_cents": 100}})
	require.Equal(t, http.StatusCreated, made.Status, "%s", made.Body)
	var door string
	require.NoError(t, s.DB.NewRaw(`SELECT door FROM audit_log WHERE account_id = ? AND action = 'account.live_activated'`, acct.ID).
		Scan(context.Background(), &door))
	require.Equal(t, "dashboard", door)

	// An account owner cannot activate it (it is the platform's call).
	owner := newBrowser(t, s)
	owner.login("maria@example.com", "pão de queijo quentinho")
	require.Equal(t, http.StatusForbidden, owner.do("POST", "/dashboard/support/accounts/"+acct.ID+"/activate-live",
		url.Values{"_csrf": {owner.csrf("/dashboard/payments")}}, nil).status)
}
