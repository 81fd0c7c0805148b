package operations

import "fmt"

// Who may make the operations no account role governs.
const (
	// Anyone: a person's steps before they are signed in (sign up, follow
	// a link they were mailed, sign in, ask for a reset); what proves them
	// is the link or the password, not a permission.
	Anyone Permission = "anyone"
	// PSPOnly: what only the PSP's callbacks, the service's own workers and
	// admin commands do (a dispute the payer's bank opened).
	PSPOnly Permission = "psp"
)

// Rulebook is the one role-by-action table: every operation, by the name of
// its method (a method whose permission depends on what it is asked for,
// by "Method:what"), and the permission it needs. What each role has of
// each permission is roleWrites (RoleMay); what a key has, its permissions
// bounded by its maker's role (Allow). Every operation asks it through
// rule, and a test fails for an exported method of Operations without its
// row, or a row without its method.
var Rulebook = map[string]Permission{
	// Charges and subscriptions.
	"CreatePayment":         Write(Payments),
	"CreatePaymentBatch":    Write(Payments),
	"CancelPayment":         Write(Payments),
	"SimulatePayment":       Write(Payments),
	"SimulatePaymentOn":     Write(Payments),
	"SimulateExpiry":        Write(Payments),
	"CreateSubscription":    Write(Payments),
	"CancelSubscription":    Write(Payments),
	"CreateCycle":           Write(Payments),
	"SimulateAuthorization": Write(Payments),
	"SimulateCycle":         Write(Payments),
	"SimulatePayerCancel":   Write(Payments),
	"HurryCharge":           Write(Payments),

	// Money out.
	"RefundPayment":            Write(Refunds),
	"CheckRefund":              Write(Refunds),
	"CreateRefund":             Write(Refunds),
	"SimulateRefundEnd":        Write(Refunds),
	"ReturnTransfer":           Write(Refunds),
	"ReturnTransfer:platform":  PlatformReturns,
	"CreateWithdrawal":         Write(Withdrawals),
	"CheckWithdrawal":          Write(Withdrawals),
	"SimulateWithdrawalEnd":    Write(Withdrawals),
	"CreatePixQRCode":          Write(Payments),
	"SimulatePixQRCodePayment": Write(Payments),
	"DeactivatePixQRCode":      Write(Payments),
	"CreatePaymentLink":        Write(Payments),
	"DeactivatePaymentLink":    Write(Payments),
	"ContestWithdrawal":        Write(Withdrawals),
	"SimulateContestResult":    Write(Withdrawals),

	// Disputes.
	"SimulateDispute":        Write(Disputes),
	"SimulateDisputeOutcome": Write(Disputes),
	"DefendDispute":          Write(Disputes),
	"ApplyPSPDispute":        PSPOnly,
	"ReceivePSPNotice":       PSPOnly,

	// Webhooks and events.
	"CreateWebhook":       Write(Webhooks),
	"UpdateWebhook":       Write(Webhooks),
	"DeleteWebhook":       Write(Webhooks),
	"RotateWebhookSecret": Write(Webhooks),
	"SendTest":            Write(Webhooks),
	"ResendDelivery":      Write(Webhooks),
	"ResendFailedSince":   Write(Webhooks),
	"RecoverEvents":       Write(Webhooks),
	"ReplayWebhook":       Write(Webhooks),
	"ResendEvent":         Write(Events),

	// Reports: reading what they hold.
	"CreateReport:payments": Read(Payments),
	"CreateReport:refunds":  Read(Refunds),
	"CreateReport:ledger":   Read(Balance),
	"CreateReport:payouts":  Read(Withdrawals),
	"ReadReport:payments":   Read(Payments),
	"ReadReport:refunds":    Read(Refunds),
	"ReadReport:ledger":     Read(Balance),
	"ReadReport:payouts":    Read(Withdrawals),

	// A platform's subaccounts.
	"CreateSubaccount": Write(Subaccounts),

	// Keys, the team, the account.
	"CreateAPIKey":           Write(APIKeys),
	"RevokeAPIKey":           Write(APIKeys),
	"SetPaymentsVersion":     Write(APIKeys),
	"InviteMember":           Write(Team),
	"RevokeInvitation":       Write(Team),
	"SetMemberRole":          Write(Team),
	"RemoveMember":           Write(Team),
	"SetDailyReport":         Write(Settings),
	"SetPreferences:account": Write(Settings),
	"ActivateLive":           PlatformActivateLive,
	"CreateAccount":          PlatformAccounts,
	"CreateUser":             PlatformUsers,
	"SetPasswordOf":          PlatformUsers,

	// A person's own sign-in.
	"SetPreferences":     Self,
	"ChangePassword":     Self,
	"EnrollTOTP":         Self,
	"DisableTOTP":        Self,
	"VerifySecondFactor": Self,
	"AddPasskey":         Self,
	"RemovePasskey":      Self,
	"UsedPasskey":        Self,
	"PersonOf":           Self,
	"EndSession":         Self,
	"EndOtherSessions":   Self,
	"ResendVerification": Self,

	// Before signing in.
	"SignUpBusiness":       Anyone,
	"VerifyEmail":          Anyone,
	"AcceptInvitation":     Anyone,
	"RequestPasswordReset": Anyone,
	"ResetPassword":        Anyone,
	"RecordSignIn":         Anyone,
	"OpenSession":          Anyone,
	"NotifySignInFailures": Anyone,

	// A payer at a payment link's page: the link's address proves them.
	"ChargeThroughLink": Anyone,
}

// rule is what action needs, from the Rulebook. An action without a row is
// a programming error the rulebook's test catches before it ships.
func rule(action string) Permission {
	p, ok := Rulebook[action]
	if !ok {
		panic(fmt.Sprintf("operations: %s has no row in the Rulebook", action))
	}
	return p
}
