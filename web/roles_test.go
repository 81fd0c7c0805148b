package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// Each role changes what the permission table says, refused in the
// operations (a forged POST gets 403 permission_denied and changes
// nothing), and its pages do not offer the rest.
func TestRolesAreEnforcedByTheOperations(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	paid := s.Fund(s.TestKey, 5_000)
	for _, role := range []string{store.RoleDeveloper, store.RoleFinance, store.RoleViewer} {
		_, err := s.Store.CreateUser(context.Background(), role+"@example.com", "correct-horse-battery", role, s.Account.ID)
		require.NoError(t, err)
	}
	type ask struct {
		path    string
		form    url.Values
		confirm bool // asks for confirmation first
	}
	refund := ask{"/dashboard/payments/" + paid + "/refund", url.Values{"amount": {"10,00"}}, true}
	webhook := ask{"/dashboard/webhooks", url.Values{"url": {"https://example.com/hook"}, "events": {"payment.paid"}}, false}
	withdraw := ask{"/dashboard/balance/withdrawals", url.Values{"amount": {"1,00"}, "pix_key": {"a@example.com"}}, true}
	key := ask{"/dashboard/api-keys", url.Values{"mode": {"test"}, "name": {"ERP"}}, false}
	for _, tc := range []struct {
		role    string
		allowed map[string]bool
	}{
		{store.RoleDeveloper, map[string]bool{"webhook": true, "key": true}},
		{store.RoleFinance, map[string]bool{"refund": true, "withdraw": true}},
		{store.RoleViewer, map[string]bool{}},
	} {
		b := newBrowser(t, s)
		require.Equal(t, http.StatusSeeOther, b.login(tc.role+"@example.com", "correct-horse-battery").status)
		detail := b.do("GET", "/dashboard/payments/"+paid, nil, nil)
		require.Equal(t, http.StatusOK, detail.status)
		require.Equal(t, tc.allowed["refund"], strings.Contains(detail.body, `data-testid="refund-form"`), "%s: refund offered", tc.role)
		hooks := b.do("GET", "/dashboard/webhooks", nil, nil)
		require.Equal(t, tc.allowed["webhook"], strings.Contains(hooks.body, `href="/dashboard/webhooks/new"`), "%s: new webhook offered", tc.role)
		keys := b.do("GET", "/dashboard/api-keys", nil, nil)
		require.Equal(t, tc.allowed["key"], strings.Contains(keys.body, `data-testid="create-key-test"`), "%s: new key offered", tc.role)
		balance := b.do("GET", "/dashboard/balance", nil, nil)
		require.Equal(t, tc.allowed["withdraw"], strings.Contains(balance.body, `data-testid="withdraw-form"`), "%s: withdrawal offered", tc.role)

		for name, a := range map[string]ask{"refund": refund, "webhook": webhook, "withdraw": withdraw, "key": key} {
			before := auditCount(t, s)
			form := url.Values{"_csrf": {b.csrf("/dashboard/payments/" + paid)}}
			for k, v := range a.form {
				form[k] = v
			}
			if tc.allowed[name] && a.confirm {
				require.Equal(t, http.StatusSeeOther, b.confirm(a.path, form, nil).status, "%s may %s", tc.role, name)
				require.Equal(t, before+1, auditCount(t, s), "%s %s: audited", tc.role, name)
				continue
			}
			r := b.do("POST", a.path, form, nil)
			if tc.allowed[name] {
				require.Less(t, r.status, 400, "%s may %s: %s", tc.role, name, r.body)
				require.Equal(t, before+1, auditCount(t, s), "%s %s: audited", tc.role, name)
				continue
			}
			require.Equal(t, http.StatusForbidden, r.status, "%s may not %s: %s", tc.role, name, r.body)
			require.Equal(t, before, auditCount(t, s), "%s %s: nothing changed", tc.role, name)
		}
	}
	p := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + paid, Key: s.TestKey}).JSON(t)
	require.Equal(t, float64(1_000), p["amount_refunded_cents"], "only finance's refund of R$ 10,00 was made")
}

func auditCount(t *testing.T, s *webtest.Server) int {
	t.Helper()
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM audit_log").Scan(context.Background(), &n))
	return n
}
