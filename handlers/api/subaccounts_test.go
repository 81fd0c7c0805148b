package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/operations"
	"payments/store"
	"payments/web/webtest"
)

// A platform's subaccounts: made and listed by the platform, each an
// account of its own that the platform acts for with Payments-Account
// (its payments, balance, webhooks and events apart from the platform's
// and each other's); its events reach its own webhooks and the platform's,
// which name it in "account"; a key limited to chosen subaccounts acts
// for those only; a foreign or unknown account is 403 account_invalid.
func TestPlatformsActForTheirSubaccounts(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	call := func(method, path, account string, body any, want int) map[string]any {
		t.Helper()
		req := webtest.Request{Method: method, Path: path, Key: s.TestKey, Body: body}
		if account != "" {
			req.Headers = map[string]string{"Payments-Account": account}
		}
		r := s.Do(req)
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	seller := call("POST", "/api/v1/subaccounts", "", map[string]any{"name": "Padaria Pão Quente", "document": "12.ABC.345/01DE-35",
		"email": "padaria@example.com", "pix_key": "padaria@example.com"}, http.StatusCreated)
	other := call("POST", "/api/v1/subaccounts", "", map[string]any{"name": "Ana Lima ME", "document": "529.982.247-25",
		"email": "padaria@example.com", "pix_key": "+55 61 98888-0000"}, http.StatusCreated)
	sellerID := seller["id"].(string)
	require.Equal(t, []any{"account", "Padaria Pão Quente", "12ABC34501DE35", "padaria@example.com", "active", s.Account.ID},
		[]any{seller["object"], seller["name"], seller["document"], seller["pix_key"], seller["status"], seller["platform"]})
	require.Equal(t, "+5561988880000", other["pix_key"], "keys in the DICT's form; one e-mail may serve two subaccounts")
	require.Len(t, call("GET", "/api/v1/subaccounts", "", nil, http.StatusOK)["data"], 2)
	require.Equal(t, sellerID, call("GET", "/api/v1/subaccounts/"+sellerID, "", nil, http.StatusOK)["id"])

	// Webhooks: the platform's hears everyone; the seller's its own.
	platformHook, sellerHook := webtest.NewReceiver(t, nil), webtest.NewReceiver(t, nil)
	s.CreateWebhook(platformHook.URL, nil)
	call("POST", "/api/v1/webhooks", sellerID, map[string]any{"url": sellerHook.URL, "events": []string{"payment.paid"}}, http.StatusCreated)
	require.Len(t, call("GET", "/api/v1/webhooks", "", nil, http.StatusOK)["data"], 1, "each account's webhooks are its own")

	// A charge of the seller's, paid: the seller's money, not the platform's.
	p := call("POST", "/api/v1/payments", sellerID, map[string]any{"amount_cents": 10_000}, http.StatusCreated)
	paid := call("POST", "/api/v1/test_helpers/payments/"+p["id"].(string)+"/pay", sellerID, nil, http.StatusOK)
	call("GET", "/api/v1/payments/"+p["id"].(string), "", nil, http.StatusNotFound)
	require.Equal(t, p["id"], call("GET", "/api/v1/payments/"+p["id"].(string), sellerID, nil, http.StatusOK)["id"])
	require.EqualValues(t, 10_000-paid["fee_cents"].(float64), call("GET", "/api/v1/balance", sellerID, nil, http.StatusOK)["pending_cents"].(float64)+
		call("GET", "/api/v1/balance", sellerID, nil, http.StatusOK)["available_cents"].(float64))
	platformBalance := call("GET", "/api/v1/balance", "", nil, http.StatusOK)
	require.Equal(t, []any{0.0, 0.0}, []any{platformBalance["available_cents"], platformBalance["pending_cents"]})
	require.Len(t, call("GET", "/api/v1/events", sellerID, nil, http.StatusOK)["data"], 2)
	s.LedgerMatchesBalance(store.Scope{AccountID: sellerID})

	s.Dispatcher.RunOnce(context.Background(), 10)
	envelopes := map[string]map[string]any{}
	for name, r := range map[string]*webtest.Receiver{"platform": platformHook, "seller": sellerHook} {
		got := r.WaitFor(1, 10*time.Second)
		require.Len(t, got, 1, name)
		var env map[string]any
		require.NoError(t, json.Unmarshal(got[0].Body, &env))
		envelopes[name] = env
	}
	require.Equal(t, sellerID, envelopes["platform"]["account"], "the platform's webhook is told whose event it is")
	require.NotContains(t, envelopes["seller"], "account", "the seller's own webhook hears its own")
	require.Equal(t, envelopes["platform"]["id"], envelopes["seller"]["id"], "one event")

	// A key limited to the other subaccount acts for it only.
	ops := &operations.Operations{Store: s.Store}
	_, limited, err := ops.CreateAPIKey(context.Background(), store.ActorAdmin("test"), s.Account.ID, false,
		store.NewAPIKey{Name: "Só a Ana", Subaccounts: []string{other["id"].(string)}})
	require.NoError(t, err)
	_, _, err = ops.CreateAPIKey(context.Background(), store.ActorAdmin("test"), s.Account.ID, false,
		store.NewAPIKey{Name: "Outra", Subaccounts: []string{"acct_nope"}})
	var bad *operations.InputError
	require.ErrorAs(t, err, &bad)
	as := func(key, account string) *webtest.Response {
		req := webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: key}
		if account != "" {
			req.Headers = map[string]string{"Payments-Account": account}
		}
		return s.Do(req)
	}
	require.Equal(t, http.StatusOK, as(limited, other["id"].(string)).Status)
	for _, refused := range []struct {
		key, account, code string
	}{
		{limited, sellerID, "account_invalid"},
		{limited, "", "subaccount_required"},
		{s.TestKey, "acct_nope", "account_invalid"},
		{s.TestKey, s.Account.ID, "account_invalid"},
	} {
		r := as(refused.key, refused.account)
		require.Equal(t, http.StatusForbidden, r.Status, "%+v: %s", refused, r.Body)
		require.Equal(t, refused.code, r.ErrorCode(t))
	}
	// Another platform's subaccount is no one's to act for.
	stranger, strangerKey, _ := s.NewAccount("Outra Plataforma", "outra@example.com")
	require.NotNil(t, stranger)
	r := as(strangerKey, sellerID)
	require.Equal(t, []any{http.StatusForbidden, "account_invalid"}, []any{r.Status, r.ErrorCode(t)})

	// Platforms are one level deep; every field is checked.
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Headers: map[string]string{"Payments-Account": sellerID},
		Body: map[string]any{"name": "Filial", "document": "529.982.247-25", "email": "f@example.com", "pix_key": "f@example.com"}})
	require.Equal(t, []any{http.StatusBadRequest, "platform_only"}, []any{r.Status, r.ErrorCode(t)})
	for _, bad := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"document": "529.982.247-25", "email": "a@example.com", "pix_key": "a@example.com"}, "name"},
		{map[string]any{"name": "A", "document": "529.982.247-26", "email": "a@example.com", "pix_key": "a@example.com"}, "document"},
		{map[string]any{"name": "A", "document": "529.982.247-25", "email": "a@", "pix_key": "a@example.com"}, "email"},
		{map[string]any{"name": "A", "document": "529.982.247-25", "email": "a@example.com", "pix_key": "chave"}, "pix_key"},
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Body: bad.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", bad.body, r.Body)
		require.Equal(t, bad.param, r.ErrorParam(t))
	}
}
