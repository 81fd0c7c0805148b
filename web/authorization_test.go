package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/operations"
	"payments/store"
	"payments/web/webtest"
)

// authzFixture is one account with something of everything to act on,
// made by an admin command's key: each door's calls name these.
type authzFixture struct {
	paid, paid2, pending, refund, withdrawal, dispute, hook, delivery, event, subscription, qrCode, link string
	retiredQRCode                                                                                        string // one to deactivate, qrCode still paid
}

func newAuthzFixture(t *testing.T, s *webtest.Server) authzFixture {
	t.Helper()
	post := func(path string, body any) map[string]any {
		r := s.Do(webtest.Request{Method: "POST", Path: path, Key: s.TestKey, Body: body})
		require.Less(t, r.Status, 300, "%s: %s", path, r.Body)
		return r.JSON(t)
	}
	var f authzFixture
	f.hook, _ = s.CreateWebhook(webtest.NewReceiver(t, nil).URL+"/hook", nil)
	f.paid, f.paid2 = s.Fund(s.TestKey, 500_000), s.Fund(s.TestKey, 50_000)
	f.pending = s.CreatePayment(map[string]any{"amount_cents": 700})["id"].(string)
	f.refund = post("/api/v1/refunds", map[string]any{"payment": f.paid, "amount_cents": 100})["id"].(string)
	f.withdrawal = post("/api/v1/withdrawals", map[string]any{"amount_cents": 100, "pix_key": "ana@example.com"})["id"].(string)
	f.dispute = post("/api/v1/test_helpers/payments/"+f.paid2+"/dispute", map[string]any{"reason": "fraud"})["id"].(string)
	f.qrCode = post("/api/v1/pix_qr_codes", map[string]any{"amount_cents": 300})["id"].(string)
	f.retiredQRCode = post("/api/v1/pix_qr_codes", map[string]any{"amount_cents": 300})["id"].(string)
	f.link = post("/api/v1/payment_links", map[string]any{"description": "Ingresso", "amount_cents": 300})["id"].(string)
	f.event = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events?limit=1", Key: s.TestKey}).JSON(t)["data"].([]any)[0].(map[string]any)["id"].(string)
	require.NoError(t, s.DB.NewRaw(`SELECT id FROM webhook_deliveries WHERE webhook_id = ? LIMIT 1`, f.hook).Scan(context.Background(), &f.delivery))
	f.subscription = post("/api/v1/subscriptions", map[string]any{"payer": map[string]any{"name": "Ana Lima", "document": "529.982.247-25"},
		"contract": "C-1", "interval": "monthly", "start_date": "2099-01-10", "amount_cents": 4_900,
		"retry_policy": "none", "journey": "authorization_only"})["id"].(string)
	return f
}

// door is one change asked through a door: the Rulebook action it is and
// the request that asks it.
type door struct {
	action string
	method string
	path   string
	body   map[string]any // API: JSON; dashboard: form fields
}

func (f authzFixture) apiDoors() []door {
	return []door{
		{"CreatePayment", "POST", "/api/v1/payments", map[string]any{"amount_cents": 100}},
		{"CreatePaymentBatch", "POST", "/api/v1/payment_batches", map[string]any{"payments": []any{map[string]any{"amount_cents": 100, "external_id": "lote-1"}}}},
		{"CancelPayment", "DELETE", "/api/v1/payments/" + f.pending, nil},
		{"SimulatePayment", "POST", "/api/v1/test_helpers/payments/" + f.pending + "/pay", nil},
		{"SimulateExpiry", "POST", "/api/v1/test_helpers/payments/" + f.pending + "/expire", nil},
		{"CreatePixQRCode", "POST", "/api/v1/pix_qr_codes", map[string]any{"amount_cents": 100}},
		{"SimulatePixQRCodePayment", "POST", "/api/v1/test_helpers/pix_qr_codes/" + f.qrCode + "/pay", nil},
		{"DeactivatePixQRCode", "POST", "/api/v1/pix_qr_codes/" + f.retiredQRCode + "/deactivate", nil},
		{"CreatePaymentLink", "POST", "/api/v1/payment_links", map[string]any{"description": "Rifa"}},
		{"CreateSubaccount", "POST", "/api/v1/subaccounts", map[string]any{"name": "Padaria", "document": "529.982.247-25",
			"email": "padaria@example.com", "pix_key": "padaria@example.com"}},
		{"DeactivatePaymentLink", "POST", "/api/v1/payment_links/" + f.link + "/deactivate", nil},
		{"RefundPayment", "POST", "/api/v1/payments/" + f.paid + "/refund", map[string]any{"amount_cents": 100}},
		{"CreateRefund", "POST", "/api/v1/refunds", map[string]any{"payment": f.paid, "amount_cents": 100}},
		{"SimulateRefundEnd", "POST", "/api/v1/test_helpers/refunds/" + f.refund + "/succeed", nil},
		{"CreateWithdrawal", "POST", "/api/v1/withdrawals", map[string]any{"amount_cents": 100, "pix_key": "ana@example.com"}},
		{"SimulateWithdrawalEnd", "POST", "/api/v1/test_helpers/withdrawals/" + f.withdrawal + "/complete", nil},
		{"ContestWithdrawal", "POST", "/api/v1/withdrawals/" + f.withdrawal + "/contest", map[string]any{"reason": "fraud", "description": "Golpe."}},
		{"SimulateContestResult", "POST", "/api/v1/test_helpers/withdrawals/" + f.withdrawal + "/contest_result", map[string]any{"amount_returned_cents": 0}},
		{"SimulateDispute", "POST", "/api/v1/test_helpers/payments/" + f.paid + "/dispute", map[string]any{"reason": "fraud"}},
		{"DefendDispute", "POST", "/api/v1/disputes/" + f.dispute + "/defense", map[string]any{"text": "O pagador autorizou."}},
		{"SimulateDisputeOutcome", "POST", "/api/v1/test_helpers/disputes/" + f.dispute + "/win", nil},
		{"CreateSubscription", "POST", "/api/v1/subscriptions", map[string]any{"payer": map[string]any{"name": "Bia", "document": "529.982.247-25"},
			"contract": "C-2", "interval": "monthly", "start_date": "2099-01-10", "amount_cents": 100, "retry_policy": "none", "journey": "authorization_only"}},
		{"SimulateAuthorization", "POST", "/api/v1/test_helpers/subscriptions/" + f.subscription + "/authorize", nil},
		{"CancelSubscription", "POST", "/api/v1/subscriptions/" + f.subscription + "/cancel", nil},
		{"CreateWebhook", "POST", "/api/v1/webhooks", map[string]any{"url": "https://example.com/other", "events": []string{"payment.paid"}}},
		{"UpdateWebhook", "POST", "/api/v1/webhooks/" + f.hook, map[string]any{"name": "Outro"}},
		{"RotateWebhookSecret", "POST", "/api/v1/webhooks/" + f.hook + "/rotate_secret", nil},
		{"SendTest", "POST", "/api/v1/webhooks/" + f.hook + "/test", map[string]any{"event": "payment.paid"}},
		{"ResendFailedSince", "POST", "/api/v1/webhooks/" + f.hook + "/resend_failed", nil},
		{"RecoverEvents", "POST", "/api/v1/webhooks/" + f.hook + "/recover", map[string]any{"since": 1}},
		{"ReplayWebhook", "POST", "/api/v1/webhooks/" + f.hook + "/replay", map[string]any{"from": 1, "to": 2}},
		{"ResendDelivery", "POST", "/api/v1/webhooks/" + f.hook + "/deliveries/" + f.delivery + "/resend", nil},
		{"ResendEvent", "POST", "/api/v1/events/" + f.event + "/resend", nil},
		{"CreateReport:payments", "POST", "/api/v1/reports", map[string]any{"type": "payments", "format": "csv", "from": "2026-01-01", "to": "2026-01-01"}},
		{"CreateReport:payouts", "POST", "/api/v1/reports", map[string]any{"type": "payouts", "format": "csv", "from": "2026-01-01", "to": "2026-01-01"}},
		{"DeleteWebhook", "DELETE", "/api/v1/webhooks/" + f.hook, nil},
	}
}

func (f authzFixture) dashboardDoors() []door {
	return []door{
		{"CreatePayment", "GET", "/dashboard/payments/new", nil},
		{"CreatePayment", "POST", "/dashboard/payments", map[string]any{"amount": "1,00"}},
		{"SimulatePayment", "POST", "/dashboard/payments/" + f.pending + "/simulate", map[string]any{"outcome": "pay"}},
		{"RefundPayment", "POST", "/dashboard/payments/" + f.paid + "/refund", map[string]any{"amount": "1,00"}},
		{"SimulateDispute", "POST", "/dashboard/payments/" + f.paid + "/dispute", nil},
		{"SimulateDisputeOutcome", "POST", "/dashboard/disputes/" + f.dispute + "/win", nil},
		{"CreateWithdrawal", "POST", "/dashboard/balance/withdrawals", map[string]any{"amount": "1,00", "pix_key": "ana@example.com"}},
		{"SimulateWithdrawalEnd", "POST", "/dashboard/balance/withdrawals/" + f.withdrawal + "/complete", nil},
		{"CreateSubscription", "GET", "/dashboard/subscriptions/new", nil},
		{"CancelSubscription", "POST", "/dashboard/subscriptions/" + f.subscription + "/cancel", nil},
		{"CreateWebhook", "GET", "/dashboard/webhooks/new", nil},
		{"CreateWebhook", "POST", "/dashboard/webhooks", map[string]any{"url": "https://example.com/x", "events": "payment.paid"}},
		{"UpdateWebhook", "GET", "/dashboard/webhooks/" + f.hook + "/edit", nil},
		{"UpdateWebhook", "POST", "/dashboard/webhooks/" + f.hook + "/toggle", nil},
		{"SendTest", "POST", "/dashboard/webhooks/" + f.hook + "/test", map[string]any{"event": "payment.paid"}},
		{"RotateWebhookSecret", "POST", "/dashboard/webhooks/" + f.hook + "/rotate", nil},
		{"ResendDelivery", "POST", "/dashboard/webhooks/" + f.hook + "/deliveries/" + f.delivery + "/resend", nil},
		{"ResendFailedSince", "POST", "/dashboard/webhooks/" + f.hook + "/resend-failed", nil},
		{"RecoverEvents", "POST", "/dashboard/webhooks/" + f.hook + "/recover", nil},
		{"ReplayWebhook", "POST", "/dashboard/webhooks/" + f.hook + "/replay", nil},
		{"CreateAPIKey", "POST", "/dashboard/api-keys", map[string]any{"mode": "test"}},
		{"SetPaymentsVersion", "POST", "/dashboard/api-version", map[string]any{"payments_version": "2026-11-27"}},
		{"InviteMember", "POST", "/dashboard/team/invitations", map[string]any{"email": "nova@example.com", "role": "viewer"}},
		{"SetDailyReport", "POST", "/dashboard/reports/daily", map[string]any{"format": "csv"}},
		{"DeleteWebhook", "POST", "/dashboard/webhooks/" + f.hook + "/delete", nil},
	}
}

// writes counts what a refused call must leave as it was.
func writes(t *testing.T, s *webtest.Server) string {
	t.Helper()
	var n string
	require.NoError(t, s.DB.NewRaw(`SELECT concat_ws(' ', (SELECT count(*) FROM audit_log), (SELECT count(*) FROM events),
		(SELECT count(*) FROM payments), (SELECT count(*) FROM refunds), (SELECT count(*) FROM withdrawals), (SELECT count(*) FROM disputes),
		(SELECT count(*) FROM webhooks), (SELECT count(*) FROM api_keys), (SELECT count(*) FROM email_tokens))`).Scan(context.Background(), &n))
	return n
}

var accountRoles = []string{store.RoleOwner, store.RoleAdmin, store.RoleDeveloper, store.RoleFinance, store.RoleViewer}

// Every role (support staff too) times every change, through the dashboard
// and through a key that person made: allowed exactly where the Rulebook (the README's
// table, TestTheREADMEsRoleTableIsTheRulebook) says, 403 permission_denied
// everywhere else with nothing written. Keys of finance and viewers are
// ones they made as admins, kept after a demotion: a key follows its
// maker's role. Every change with an API or a dashboard door is here: a
// row of the Rulebook on an account's resource that neither list names
// fails the test.
func TestEveryRoleAtEveryDoorAsTheRulebookSays(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	f := newAuthzFixture(t, s)
	owner := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, owner.login("dona@example.com", "correct-horse-battery").status)

	people := map[string]*browser{}
	keys := map[string]string{}
	for _, role := range accountRoles {
		email := role + "@example.com"
		made := role
		if !operations.RoleMay(role, operations.Rulebook["CreateAPIKey"]) {
			made = store.RoleAdmin // they make their key as admins, then are demoted
		}
		u, err := s.Store.CreateUser(context.Background(), email, "correct-horse-battery", made, s.Account.ID)
		require.NoError(t, err)
		b := newBrowser(t, s)
		require.Equal(t, http.StatusSeeOther, b.login(email, "correct-horse-battery").status)
		keys[role] = newKeyFromPage(t, b, url.Values{"mode": {"test"}, "name": {role}})
		require.NotEmpty(t, keys[role], role)
		if made != role {
			r := owner.do("POST", "/dashboard/team/members/"+u.ID+"/role", url.Values{"_csrf": {owner.csrf("/dashboard/team")}, "role": {role}}, nil)
			require.Less(t, r.status, 400, "%s", r.body)
			require.Equal(t, http.StatusSeeOther, b.login(email, "correct-horse-battery").status, "signed in again in the new role")
		}
		people[role] = b
	}

	// Support staff belong to no account and make no keys: they are at
	// the account's dashboard doors only (the console's own changes,
	// platform:..., have tests of their own).
	_, err := s.Store.CreateUser(context.Background(), "ajuda@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	people[store.RoleSupport] = newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, people[store.RoleSupport].login("ajuda@example.com", "correct-horse-battery").status)

	covered := map[string]bool{}
	for _, role := range append(slices.Clone(accountRoles), store.RoleSupport) {
		for _, d := range f.apiDoors() {
			if role == store.RoleSupport {
				break
			}
			covered[d.action] = true
			allowed := operations.RoleMay(role, operations.Rulebook[d.action])
			before := writes(t, s)
			r := s.DoRaw(webtest.Request{Method: d.method, Path: d.path, Key: keys[role], Body: d.body})
			where := fmt.Sprintf("API, %s's key: %s %s (%s)", role, d.method, d.path, d.action)
			if allowed {
				require.NotEqual(t, http.StatusForbidden, r.Status, "%s may: %s", where, r.Body)
				continue
			}
			require.Equal(t, http.StatusForbidden, r.Status, "%s may not: %s", where, r.Body)
			require.Equal(t, "permission_denied", r.ErrorCode(t), where)
			require.Equal(t, before, writes(t, s), "%s: nothing written", where)
		}
		b := people[role]
		for _, d := range f.dashboardDoors() {
			covered[d.action] = true
			allowed := operations.RoleMay(role, operations.Rulebook[d.action])
			before := writes(t, s)
			var form url.Values
			if d.method == "POST" {
				form = url.Values{"_csrf": {b.csrf("/dashboard/settings")}}
				for k, v := range d.body {
					form.Set(k, v.(string))
				}
			}
			r := b.do(d.method, d.path, form, nil)
			where := fmt.Sprintf("dashboard, %s: %s %s (%s)", role, d.method, d.path, d.action)
			if allowed {
				require.NotEqual(t, http.StatusForbidden, r.status, "%s may: %s", where, r.body)
				continue
			}
			require.Equal(t, http.StatusForbidden, r.status, "%s may not: %s", where, r.body)
			require.Equal(t, before, writes(t, s), "%s: nothing written", where)
			require.Zero(t, r.doc.Find(`main form:not([action="/dashboard/email/resend"])`).Length(), "%s: no form shown", where)
		}
	}
	// The team's changes and the account's, on their own pages.
	for action, p := range operations.Rulebook {
		resource, level, _ := strings.Cut(string(p), ":")
		if level != "write" || resource == "platform" || covered[action] || slices.Contains(withoutADoorHere, action) {
			continue
		}
		t.Errorf("%s (%s) is asked through no door of this test: add its request, or to withoutADoorHere why not", action, p)
	}
}

// withoutADoorHere are the Rulebook's changes this test does not ask at
// a door, each for its reason.
var withoutADoorHere = []string{
	"CheckRefund", "CheckWithdrawal", // questions the dashboard asks before its confirmation: RefundPayment's and CreateWithdrawal's doors
	"SimulatePaymentOn", "SimulateCycle", "SimulatePayerCancel", "CreateCycle", // SimulatePayment's and the subscription's doors, the same permission
	"HurryCharge",                                       // the retry of a live charge's creation: CreatePayment's door and permission
	"ReturnTransfer",                                    // needs a live Pix that paid nothing: TestMerchantReturnsAPixThatPaidNothing
	"RevokeAPIKey",                                      // the keys page, CreateAPIKey's permission: TestRolesAreEnforcedByTheOperations
	"RevokeInvitation", "SetMemberRole", "RemoveMember", // the team's page, InviteMember's permission (owners only)
	"SetPreferences:account", // the settings page: SetDailyReport's permission
}
