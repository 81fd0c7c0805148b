package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// newKeyFromPage makes a key through the keys page's form, as the person
// signed in on b, and returns the secret the page shows once.
func newKeyFromPage(t *testing.T, b *browser, form url.Values) string {
	t.Helper()
	form.Set("_csrf", b.csrf("/dashboard/api-keys"))
	r := b.do("POST", "/dashboard/api-keys", form, nil)
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	return b.do("GET", "/dashboard/api-keys", nil, nil).doc.Find(`[data-testid="new-key"]`).Text()
}

// A developer's key does what a developer may and nothing more, in both
// modes: no refund, no withdrawal (the report: 201 for both), and
// a restricted key asked with withdrawals:write holds withdrawals:read.
// Nothing is written by the refused calls.
func TestAKeyIsNeverStrongerThanItsMaker(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	paid := s.Fund(s.TestKey, 10_000)
	_, err := s.Store.CreateUser(context.Background(), "dev@example.com", "correct-horse-battery", store.RoleDeveloper, s.Account.ID)
	require.NoError(t, err)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dev@example.com", "correct-horse-battery").status)

	full := newKeyFromPage(t, b, url.Values{"mode": {"test"}, "name": {"CI"}})
	require.Regexp(t, `^rk_test_`, full, "a developer's full key holds only what developers may: a restricted key")
	k, err := s.Store.APIKeyBySecret(context.Background(), full)
	require.NoError(t, err)
	require.Equal(t, []string{"balance:read", "disputes:write", "events:write", "payments:write", "refunds:read", "subaccounts:read", "webhooks:write", "withdrawals:read"}, k.Permissions)

	asked := newKeyFromPage(t, b, url.Values{"mode": {"test"}, "restricted": {"1"}, "name": {"Payout"}, "perm_withdrawals": {"write"}, "perm_payments": {"read"}})
	k, err = s.Store.APIKeyBySecret(context.Background(), asked)
	require.NoError(t, err)
	require.Equal(t, []string{"payments:read", "withdrawals:read"}, k.Permissions)

	for _, key := range []string{full, asked} {
		for _, call := range []webtest.Request{
			{Method: "POST", Path: "/api/v1/withdrawals", Body: map[string]any{"amount_cents": 1_000, "pix_key": "dev@example.com"}},
			{Method: "POST", Path: "/api/v1/payments/" + paid + "/refund", Body: map[string]any{"amount_cents": 1_000}},
			{Method: "POST", Path: "/api/v1/refunds", Body: map[string]any{"payment": paid, "amount_cents": 1_000}},
		} {
			call.Key = key
			r := s.Do(call)
			require.Equal(t, http.StatusForbidden, r.Status, "%s %s: %s", call.Method, call.Path, r.Body)
			require.Equal(t, "permission_denied", r.ErrorCode(t))
		}
	}
	var moved int
	require.NoError(t, s.DB.NewRaw(`SELECT (SELECT count(*) FROM withdrawals) + (SELECT count(*) FROM refunds)`).Scan(context.Background(), &moved))
	require.Zero(t, moved, "no money moved")

	made := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: full, Body: map[string]any{"amount_cents": 500}})
	require.Equal(t, http.StatusCreated, made.Status, "what a developer may, the key does: %s", made.Body)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: full}).Status, "and reads")
}

// Demoting a key's maker narrows the key at once; removing them revokes
// it, and the keys page says both. An owner's key follows its owner.
func TestDemotingOrRemovingTheMakerNarrowsOrRevokesTheirKeys(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	paid := s.Fund(s.TestKey, 10_000)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	_, err := s.Store.CreateUser(context.Background(), "socia@example.com", "correct-horse-battery", store.RoleOwner, s.Account.ID)
	require.NoError(t, err)
	partner := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, partner.login("socia@example.com", "correct-horse-battery").status)
	key := newKeyFromPage(t, partner, url.Values{"mode": {"test"}, "name": {"ERP"}})
	require.Regexp(t, `^sk_test_`, key, "an owner's key holds what was asked")
	refund := func() *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + paid + "/refund", Key: key, Body: map[string]any{"amount_cents": 100}})
	}
	require.Equal(t, http.StatusOK, refund().Status)

	socia, err := s.Store.UserByEmail(context.Background(), "socia@example.com")
	require.NoError(t, err)
	owner := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, owner.login("dona@example.com", "correct-horse-battery").status)
	r := owner.do("POST", "/dashboard/team/members/"+socia.ID+"/role", url.Values{"_csrf": {owner.csrf("/dashboard/team")}, "role": {store.RoleDeveloper}}, nil)
	require.Less(t, r.status, 400, "%s", r.body)

	narrowed := refund()
	require.Equal(t, http.StatusForbidden, narrowed.Status, "the maker is a developer now: %s", narrowed.Body)
	require.Equal(t, "permission_denied", narrowed.ErrorCode(t))
	require.Contains(t, string(narrowed.Body), "may do no more than the person who made it, whose role (developer) does not have the refunds:write permission")
	require.Equal(t, http.StatusCreated, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: key, Body: map[string]any{"amount_cents": 100}}).Status)
	row := owner.do("GET", "/dashboard/api-keys", nil, nil).doc.Find(`[data-testid="key-row"]:contains("ERP")`)
	require.Contains(t, row.Find(`[data-testid="key-limited"]`).Text(), "Desenvolvedor", "the page says the key is bounded by its maker's role")

	r = owner.confirm("/dashboard/team/members/"+socia.ID+"/remove", url.Values{"_csrf": {owner.csrf("/dashboard/team")}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	gone := s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: key})
	require.Equal(t, http.StatusUnauthorized, gone.Status, "%s", gone.Body)
	require.Equal(t, "api_key_revoked", gone.ErrorCode(t))
	row = owner.do("GET", "/dashboard/api-keys", nil, nil).doc.Find(`[data-testid="key-row"]:contains("ERP")`)
	require.Contains(t, strings.Join(strings.Fields(row.Find(`[data-testid="key-status"]`).Text()), " "), "quem a criou saiu da equipe")
	var revokedAudits int
	require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM audit_log WHERE action = 'api_key.revoked' AND changes->'reason'->>1 = 'maker_removed'`).
		Scan(context.Background(), &revokedAudits))
	require.Equal(t, 1, revokedAudits)
}

// A live key needs the account's live mode activated and, whoever asks
// (an owner too), a second factor enrolled and proved just now.
func TestALiveKeyNeedsActivationAndAFreshSecondFactor(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	keys := func() int {
		var n int
		require.NoError(t, s.DB.NewRaw(`SELECT count(*) FROM api_keys WHERE account_id = ?`, s.Account.ID).Scan(context.Background(), &n))
		return n
	}
	before := keys()
	r := b.do("POST", "/dashboard/api-keys", url.Values{"_csrf": {b.csrf("/dashboard/api-keys")}, "mode": {"live"}}, nil)
	require.Equal(t, http.StatusForbidden, r.status, "no second factor enrolled")
	require.Contains(t, r.body, "verificação em duas etapas")
	require.Equal(t, before, keys())

	enrollTOTP(t, s, b)
	require.Regexp(t, `^sk_live_`, newKeyFromPage(t, b, url.Values{"mode": {"live"}}), "enrolled and fresh")

	// An account whose live mode was never activated makes no live key.
	acct, err := s.Store.CreateAccount(context.Background(), store.NewAccount{Name: "Padaria", Email: "padaria@example.com", FeeBPS: store.DefaultFeeBPS, TestModeOnly: true})
	require.NoError(t, err)
	_, err = s.Store.CreateUser(context.Background(), "padeira@example.com", "correct-horse-battery", store.RoleOwner, acct.ID)
	require.NoError(t, err)
	padeira := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, padeira.login("padeira@example.com", "correct-horse-battery").status)
	enrollTOTP(t, s, padeira)
	r = padeira.do("POST", "/dashboard/api-keys", url.Values{"_csrf": {padeira.csrf("/dashboard/api-keys")}, "mode": {"live"}}, nil)
	require.Equal(t, http.StatusForbidden, r.status, "%s", r.body)
	require.Regexp(t, regexp.MustCompile(`(?i)modo real.*ainda não foi liberado`), r.body)
	page := padeira.do("GET", "/dashboard/api-keys", nil, nil)
	require.Zero(t, page.doc.Find(`[data-testid="create-key-live"]`).Length(), "the page offers no live key it cannot make")
	require.Equal(t, 1, page.doc.Find(`[data-testid="create-key-test"]`).Length())
}

// A platform's owner limits a key to chosen subaccounts from the API keys
// page: the key acts for those only, always naming one, and the page says
// which.
func TestAKeyLimitedToSubaccountsFromTheDashboard(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	var sellers []string
	for _, name := range []string{"Padaria", "Açougue"} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Body: map[string]any{"name": name,
			"document": "529.982.247-25", "email": "s@example.com", "pix_key": "s@example.com"}})
		require.Equal(t, http.StatusCreated, r.Status)
		sellers = append(sellers, r.JSON(t)["id"].(string))
	}
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	require.Equal(t, 2, b.do("GET", "/dashboard/api-keys", nil, nil).doc.Find(`[data-testid="rk-subaccounts"] input`).Length())
	key := newKeyFromPage(t, b, url.Values{"mode": {"test"}, "restricted": {"1"}, "name": {"Só a padaria"}, "perm_payments": {"write"},
		"subaccount": {sellers[0]}})
	as := func(account string) *webtest.Response {
		req := webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: key}
		if account != "" {
			req.Headers = map[string]string{"Payments-Account": account}
		}
		return s.Do(req)
	}
	require.Equal(t, http.StatusOK, as(sellers[0]).Status)
	require.Equal(t, []any{http.StatusForbidden, "account_invalid"}, []any{as(sellers[1]).Status, as(sellers[1]).ErrorCode(t)})
	require.Equal(t, []any{http.StatusForbidden, "subaccount_required"}, []any{as("").Status, as("").ErrorCode(t)})
	shown := b.do("GET", "/dashboard/api-keys", nil, nil).doc.Find(`[data-testid="key-subaccounts"]`).Text()
	require.Equal(t, "Só as subcontas: Padaria", shown)
}
