package operations_test

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/packages"
)

// doorReads are the store's methods a door (handlers/, cmd/) may call:
// each reads, or waits, or is the store's clock. A change is an operation's
// (operations/), never a door's: a call from handlers/ or cmd/ to any other
// method of store.Store fails TestNoDoorWritesAroundTheOperations. A new
// read a handler needs is added here, after a look at what it does.
var doorReads = []string{
	"APIKeyBySecret", "APIKeys", "Account", "AnyEvidence", "AccountByEmail", "AccountsAwaitingLive", "Attempts", "AuditActions", "AuditActors",
	"AuditTrail", "Backlog", "Balance", "CallsForObjects", "CountWebhooks", "CountWebhooksByMode", "DecoyPasswordHash", "Deliveries",
	"DeliveriesForEvents", "Delivery", "DeliveryByID", "DeliveryConsole", "Dispute", "DisputesForPayment", "EmailTokenFor", "Evidence",
	"EventByID", "EventDeliveries", "EventsForObjects", "LastDeliveries", "LedgerEntries", "ListDisputes", "ListEvents",
	"ListPayers", "ListPaymentBatches", "ListPayments", "ListRefunds", "ListReports", "ListSubscriptions", "ListWithdrawals",
	"LiveCycleByTxID", "LiveSubscriptionByRecID", "Members", "MembershipsOf", "Now", "OverviewSeries", "Passkeys", "Payment",
	"PaymentBatch", "PaymentExists", "PendingInvitations", "PixNotification", "PixNotifications", "PixNotificationsForPayment",
	"PixQRCodeOf", "ListPixQRCodes", "PaymentLinkOf", "ListPaymentLinks", "PublicPaymentLink", "SubaccountOf", "ListSubaccounts", "SplitNet", "Balances", "PublicPayment", "PublicPixQRCode", "PublicSubscription", "QueueState", "RecoveryCodesLeft", "Refund", "RefundsForPayment", "Replay", "Replays", "Report",
	"ReportParts", "ReportSchedule", "SearchPayments", "SearchSubscriptions", "StreamFrom", "Subscription", "SubscriptionCycles",
	"UnderOpenDispute", "UserByEmail", "UserByID", "UserInAccount", "UserSessions", "WaitForCharge", "WaitForRec", "Webhook",
	"WebhookDays", "WebhookNames", "Webhooks", "WebhooksHealth", "Withdrawal",
	// The dashboard's confirm-once token: it opens the ambient transaction
	// the confirmed operation runs in and remembers the outcome shown (the
	// API's Idempotency-Key middleware does the same, in web/).
	"BeginIdempotent",
}

// benchTools write their fixtures at the store's level on purpose: they
// load millions of rows to measure the store, and are no door.
var benchTools = []string{"payments/cmd/loadgen", "payments/cmd/scalebench", "payments/cmd/reportbench"}

// Every call from handlers/ and cmd/ to a method of store.Store is one of
// doorReads: no door writes around the operations.
func TestNoDoorWritesAroundTheOperations(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Dir: ".."}
	pkgs, err := packages.Load(cfg, "payments/handlers/...", "payments/cmd/...")
	require.NoError(t, err)
	var bypasses []string
	looked := 0
	for _, p := range pkgs {
		require.Empty(t, p.Errors, p.PkgPath)
		if slices.Contains(benchTools, p.PkgPath) {
			continue
		}
		looked++
		for i, f := range p.Syntax {
			if strings.HasSuffix(p.CompiledGoFiles[i], "_test.go") {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				s := p.TypesInfo.Selections[sel]
				if s == nil || s.Kind() != types.MethodVal {
					return true
				}
				recv := s.Recv()
				if ptr, ok := recv.(*types.Pointer); ok {
					recv = ptr.Elem()
				}
				named, ok := recv.(*types.Named)
				if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "payments/store" || named.Obj().Name() != "Store" {
					return true
				}
				if !slices.Contains(doorReads, sel.Sel.Name) {
					bypasses = append(bypasses, p.Fset.Position(sel.Pos()).String()+": store."+sel.Sel.Name)
				}
				return true
			})
		}
	}
	require.Greater(t, looked, 5, "the doors' packages were read")
	require.Empty(t, bypasses, "a door calls a store method that is not a read: make it an operation (or, for a read, add it to doorReads)")
}
