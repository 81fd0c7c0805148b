package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/operations"
	"payments/store"
	"payments/versions"
	"payments/web/webtest"
)

// pinVersion pins s's account as an operator's command would.
func pinVersion(t *testing.T, s *webtest.Server, version string) {
	t.Helper()
	ops := &operations.Operations{Store: s.Store}
	require.NoError(t, ops.SetPaymentsVersion(t.Context(), store.Actor{ID: "admin:test", Door: store.DoorAdmin}, store.Scope{AccountID: s.Account.ID}, version))
}

// Dated versions, as Stripe dates its own: each answer names its
// version; a request's Payments-Version header overrides the account's
// pin, and a version the API never had is a 400 naming the header.
func TestEveryAnswerNamesItsVersion(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	current := versions.API.Current()
	require.Equal(t, "2026-11-28", current)
	require.Equal(t, current, s.Account.PaymentsVersion, "a new account is pinned to the version current when it is made")

	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, current, r.Header.Get("Payments-Version"))

	r = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey, Headers: map[string]string{"Payments-Version": "2026-11-26"}})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "2026-11-26", r.Header.Get("Payments-Version"))

	for _, bad := range []string{"2026-11-25", "v2", "latest", "2026-11-28x"} {
		r = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey, Headers: map[string]string{"Payments-Version": bad}})
		require.Equal(t, http.StatusBadRequest, r.Status, bad)
		require.Equal(t, "payments_version_unknown", r.ErrorCode(t))
		require.Equal(t, "Payments-Version", r.ErrorParam(t))
		require.Contains(t, r.JSON(t)["error"].(map[string]any)["message"], "2026-11-26, 2026-11-27, 2026-11-28")
		require.Equal(t, current, r.Header.Get("Payments-Version"))
	}
	// Errors name theirs too, before the key is known.
	r = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Headers: map[string]string{"Payments-Version": "2026-11-27"}})
	require.Equal(t, http.StatusUnauthorized, r.Status)
	require.Equal(t, "2026-11-27", r.Header.Get("Payments-Version"))

	// The pin answers a request without the header; the header still wins.
	pinVersion(t, s, "2026-11-26")
	require.Eventually(t, func() bool {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).Header.Get("Payments-Version") == "2026-11-26"
	}, 10*time.Second, 50*time.Millisecond, "the pin applies within the key cache's time")
	r = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey, Headers: map[string]string{"Payments-Version": current}})
	require.Equal(t, current, r.Header.Get("Payments-Version"))

	// The changelog, newest first.
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/api_versions", Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 3)
	var dates []string
	for _, v := range list {
		dates = append(dates, v.(map[string]any)["version"].(string))
	}
	require.Equal(t, []string{"2026-11-28", "2026-11-27", "2026-11-26"}, dates)
	require.Equal(t, true, list[0].(map[string]any)["current"])
	require.Len(t, list[1].(map[string]any)["changes"], 2)
	require.Empty(t, list[2].(map[string]any)["changes"])
}

// Each older version's shapes are still served: the webhook's secret a
// string always before 2026-11-28, bodies the old routes ignored dropped
// before 2026-11-27, and the document each version's clients were built
// with.
func TestOlderVersionsKeepTheirShapes(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	recv := webtest.NewReceiver(t, nil)
	in := func(version string) map[string]string { return map[string]string{"Payments-Version": version} }
	createHook := func(version string) map[string]any {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Headers: in(version),
			Body: map[string]any{"url": recv.URL, "events": []string{"payment.paid"}, "signature_algorithm": "ed25519"}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		return r.JSON(t)
	}

	// 2026-11-28: an ed25519 webhook has no secret, and says so by leaving it out.
	now := createHook("2026-11-28")
	require.NotContains(t, now, "secret")
	require.Equal(t, "2026-11-28", now["payments_version"], "its events speak the version that made it")
	for _, old := range []string{"2026-11-27", "2026-11-26"} {
		hook := createHook(old)
		require.Equal(t, "", hook["secret"], "%s: a string, as then", old)
		require.Equal(t, old, hook["payments_version"])
		rotated := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + hook["id"].(string) + "/rotate_secret", Key: s.TestKey, Headers: in(old)})
		require.Equal(t, http.StatusOK, rotated.Status, "%s", rotated.Body)
		require.Equal(t, "", rotated.JSON(t)["secret"])
	}
	hmac := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Headers: in("2026-11-26"),
		Body: map[string]any{"url": recv.URL, "events": []string{"payment.paid"}}}).JSON(t)
	require.Regexp(t, `^whsec_`, hmac["secret"], "an HMAC webhook's secret is the same in every version")
	// The fields of the answer keep their order: only secret was added.
	body := string(s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + now["id"].(string) + "/rotate_secret", Key: s.TestKey,
		Headers: in("2026-11-26")}).Body)
	require.True(t, strings.HasPrefix(body, `{"id":"`+now["id"].(string)+`","object":"webhook",`), body)
	require.True(t, strings.HasSuffix(body, `,"secret":""}`), body)

	// 2026-11-27 refuses members a route does not read; 2026-11-26 drops them.
	p := s.CreatePayment(map[string]any{"amount_cents": 1000})
	expire := webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/expire", Key: s.TestKey,
		Body: map[string]any{"reason": "old clients sent this"}}
	for _, version := range []string{"2026-11-28", "2026-11-27"} {
		expire.Headers = in(version)
		r := s.Do(expire)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", version, r.Body)
		require.Equal(t, "reason", r.ErrorParam(t))
	}
	expire.Headers = in("2026-11-26")
	r := s.Do(expire)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "expired", r.JSON(t)["status"])

	paid := s.CreatePayment(map[string]any{"amount_cents": 1000})
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/pay", Key: s.TestKey,
		Headers: in("2026-11-26"), Body: map[string]any{"simulate": true}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	// A refund's amount is honoured in every version; what it does not read is dropped in 2026-11-26.
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + paid["id"].(string) + "/refund", Key: s.TestKey,
		Headers: in("2026-11-26"), Body: map[string]any{"amount_cents": 300, "reason": "requested_by_customer"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 300, r.JSON(t)["amount_refunded_cents"])
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + paid["id"].(string) + "/refund", Key: s.TestKey,
		Body: map[string]any{"amount_cents": 300, "reason": "requested_by_customer"}})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "reason", r.ErrorParam(t))

	// Each version's document: 2026-11-26's as its generated clients knew it.
	doc := func(headers map[string]string) map[string]any {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/openapi.json", Headers: headers})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	{
		d := doc(in("2026-11-26"))
		require.Equal(t, "2026-11-26", d["info"].(map[string]any)["version"])
		withSecret := d["components"].(map[string]any)["schemas"].(map[string]any)["WebhookWithSecret"].(map[string]any)
		require.Contains(t, withSecret["required"], "secret")
		paths := d["paths"].(map[string]any)
		require.NotContains(t, paths["/api/v1/payments/{id_or_external_id}/refund"].(map[string]any)["post"], "requestBody")
		for _, p := range paths["/api/v1/webhooks/{id}/deliveries"].(map[string]any)["get"].(map[string]any)["parameters"].([]any) {
			if p.(map[string]any)["name"] == "status" {
				require.Equal(t, map[string]any{"$ref": "#/components/schemas/DeliveryStatus"}, p.(map[string]any)["schema"])
			}
		}
	}
	current := doc(nil)
	require.Equal(t, "2026-11-28", current["info"].(map[string]any)["version"])
	require.NotContains(t, current["components"].(map[string]any)["schemas"].(map[string]any)["WebhookWithSecret"].(map[string]any)["required"], "secret")
	r = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/openapi.json", Headers: in("2025-01-01")})
	require.Equal(t, http.StatusBadRequest, r.Status)
	require.Equal(t, "Payments-Version", r.ErrorParam(t))
}

// Webhooks render each endpoint's pinned version: every attempt names it
// in Payments-Version, whatever the account's pin is now.
func TestWebhooksSpeakTheirEndpointsVersion(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	oldRecv, newRecv := webtest.NewReceiver(t, nil), webtest.NewReceiver(t, nil)
	s.CreateWebhook(oldRecv.URL, map[string]any{"events": []string{"payment.created"}, "payments_version": "2026-11-26"})
	newHook, _ := s.CreateWebhook(newRecv.URL, map[string]any{"events": []string{"payment.created"}})
	pinVersion(t, s, "2026-11-27")
	// A webhook made without naming one speaks the account's pin.
	ops := &operations.Operations{Store: s.Store, Webhooks: operations.WebhookRules{AllowPrivateNetworks: true}}
	unnamed, _, err := ops.CreateWebhook(t.Context(), store.Actor{ID: "admin:test", Door: store.DoorAdmin}, store.NewWebhook{
		Scope: store.Scope{AccountID: s.Account.ID}, URL: newRecv.URL, APIVersion: "v2", Events: []string{"refund.succeeded"}, Enabled: true})
	require.NoError(t, err)
	require.Equal(t, "2026-11-27", unnamed.PaymentsVersion)
	s.CreatePayment(map[string]any{"amount_cents": 500})
	require.Equal(t, 2, s.Dispatcher.RunOnce(t.Context(), 10))
	require.Equal(t, "2026-11-26", oldRecv.WaitFor(1, 10*time.Second)[0].Header.Get("Payments-Version"))
	require.Equal(t, "2026-11-28", newRecv.WaitFor(1, 10*time.Second)[0].Header.Get("Payments-Version"), "its own pin, not the account's new one")

	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + newHook, Key: s.TestKey, Body: map[string]any{"payments_version": "2026-10-01"}})
	require.Equal(t, http.StatusBadRequest, r.Status)
	require.Equal(t, "payments_version", r.ErrorParam(t))
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + newHook, Key: s.TestKey, Body: map[string]any{"payments_version": "2026-11-27"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "2026-11-27", r.JSON(t)["payments_version"])
	s.CreatePayment(map[string]any{"amount_cents": 600})
	require.Equal(t, 2, s.Dispatcher.RunOnce(t.Context(), 10))
	require.Equal(t, "2026-11-27", newRecv.WaitFor(2, 10*time.Second)[1].Header.Get("Payments-Version"))
}

// The console pins the account's version (audited) and lists what each
// version changed, in Portuguese.
func TestDashboardPinsTheAPIVersion(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/api-keys", nil, nil)
	require.Equal(t, "2026-11-28", page.doc.Find(`[data-testid="pinned-version"]`).Text())
	require.Equal(t, 3, page.doc.Find(`[data-testid="api-version-form"] option`).Length())

	form := url.Values{"_csrf": {b.csrf("/dashboard/api-keys")}, "payments_version": {"2026-11-26"}}
	r := b.do("POST", "/dashboard/api-version", form, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	page = b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, "2026-11-26", page.doc.Find(`[data-testid="pinned-version"]`).Text())
	require.Contains(t, page.doc.Find(`[data-testid="notice"]`).Text(), "Conta fixada na versão 2026-11-26.")
	var audited string
	require.NoError(t, s.DB.NewRaw(`SELECT action || ' ' || (changes->'payments_version'->>0) || ' ' || (changes->'payments_version'->>1) FROM audit_log
		WHERE action = 'account.payments_version_changed'`).Scan(t.Context(), &audited))
	require.Equal(t, "account.payments_version_changed 2026-11-28 2026-11-26", audited)

	form = url.Values{"_csrf": {b.csrf("/dashboard/api-keys")}, "payments_version": {"2099-01-01"}}
	r = b.do("POST", "/dashboard/api-version", form, nil)
	page = b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, "Escolha uma das versões da API.", strings.TrimSpace(page.doc.Find(`[data-testid="notice"]`).Text()))
	require.Equal(t, "2026-11-26", page.doc.Find(`[data-testid="pinned-version"]`).Text())

	page = b.do("GET", "/dashboard/api-versions", nil, nil)
	require.Equal(t, 3, page.doc.Find(`[data-testid="api-version"]`).Length())
	require.Equal(t, "2026-11-26", page.doc.Find(`[data-testid="version-pinned"]`).Closest(`[data-testid="api-version"]`).AttrOr("data-version", ""))
	require.Contains(t, page.doc.Find(`[data-version="2026-11-28"] [data-testid="version-change"]`).Text(), "fica de fora num webhook")

	// A new webhook's version starts at the account's pin.
	page = b.do("GET", "/dashboard/webhooks/new", nil, nil)
	require.Equal(t, "2026-11-26", page.doc.Find(`select[name="payments_version"] option[selected]`).AttrOr("value", ""))
}
