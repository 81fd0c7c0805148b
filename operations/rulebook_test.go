package operations_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/operations"
	"payments/store"
)

// Every exported method of Operations has its row in the Rulebook (its
// name, or "name:what" when what it needs depends on what it is asked),
// and every row names a method: an operation added without a row fails
// here, and so does a row left behind.
func TestEveryOperationHasARowInTheRulebook(t *testing.T) {
	methods := map[string]bool{}
	typ := reflect.TypeOf(&operations.Operations{})
	for i := range typ.NumMethod() {
		methods[typ.Method(i).Name] = false
	}
	for action := range operations.Rulebook {
		method, _, _ := strings.Cut(action, ":")
		_, ok := methods[method]
		require.True(t, ok, "the Rulebook's %q names no method of Operations", action)
		methods[method] = true
	}
	for method, ruled := range methods {
		require.True(t, ruled, "%s has no row in operations.Rulebook", method)
	}
}

// readmeRows are the README's permission table's rows and the operations
// each stands for. Every operation that changes an account's data is in
// one: the table people read is the table the code enforces.
var readmeRows = map[string][]string{
	"charges, static QR codes and payment links: create, cancel or deactivate, test-mode payment/expiry": {"CreatePayment", "CreatePaymentBatch", "CancelPayment", "SimulatePayment",
		"SimulatePaymentOn", "SimulateExpiry", "CreateSubscription", "CancelSubscription", "CreateCycle", "SimulateAuthorization",
		"SimulateCycle", "SimulatePayerCancel", "HurryCharge", "CreatePixQRCode", "SimulatePixQRCodePayment", "DeactivatePixQRCode",
		"CreatePaymentLink", "DeactivatePaymentLink"},
	"**money out**: refunds, withdrawals and their contests (MED), returns of a received Pix": {"RefundPayment", "CheckRefund", "CreateRefund", "SimulateRefundEnd",
		"ReturnTransfer", "CreateWithdrawal", "CheckWithdrawal", "SimulateWithdrawalEnd", "ContestWithdrawal", "SimulateContestResult"},
	"disputes: answer (defense and evidence), test-mode disputes": {"DefendDispute", "SimulateDispute", "SimulateDisputeOutcome"},
	"webhooks (create, edit, rotate, test, resend, recover, replay, delete)": {"CreateWebhook", "UpdateWebhook", "DeleteWebhook",
		"RotateWebhookSecret", "SendTest", "ResendDelivery", "ResendFailedSince", "RecoverEvents", "ReplayWebhook", "ResendEvent"},
	"subaccounts (create)":                              {"CreateSubaccount"},
	"API keys (create, revoke) and the API version pin": {"CreateAPIKey", "RevokeAPIKey", "SetPaymentsVersion"},
	"the team":                     {"InviteMember", "RevokeInvitation", "SetMemberRole", "RemoveMember"},
	"account settings (time zone)": {"SetPreferences:account", "SetDailyReport"},
}

// The README's role table says, role by role, what the Rulebook and the
// roles' permissions allow; and every change to an account's data is in
// one of its rows.
func TestTheREADMEsRoleTableIsTheRulebook(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	roles := []string{store.RoleOwner, store.RoleAdmin, store.RoleDeveloper, store.RoleFinance, store.RoleViewer}
	seen := 0
	for _, line := range strings.Split(string(readme), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		actions, ok := readmeRows[cells[0]]
		if !ok {
			continue
		}
		seen++
		require.Len(t, cells, 1+len(roles)+1, line)
		for i, role := range roles {
			for _, action := range actions {
				allowed := operations.RoleMay(role, operations.Rulebook[action])
				require.Equal(t, allowed, cells[1+i] == "✓", "README %q, %s: %s", cells[0], role, action)
			}
		}
	}
	require.Equal(t, len(readmeRows), seen, "every row of readmeRows is in the README's table")
	var covered []string
	for _, actions := range readmeRows {
		covered = append(covered, actions...)
	}
	for action, p := range operations.Rulebook {
		resource, level, _ := strings.Cut(string(p), ":")
		if level == "write" && resource != "platform" {
			require.Contains(t, covered, action, "%s (%s) is in no row of the README's role table", action, p)
		}
	}
	require.True(t, slices.Contains(covered, "ResendEvent"))
}
