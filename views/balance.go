package views

// BalancePage is the account's money in the current mode.
type BalancePage struct {
	Nav               Nav
	AvailableLabel    string
	PendingLabel      string
	AvailableNegative bool
	Form              WithdrawForm
	Withdrawals       []WithdrawalRow
	Activity          []LedgerRow
	// CanSimulate offers complete/fail on pending withdrawals (test mode).
	CanSimulate bool
	// CanWithdraw offers the withdrawal form (roles that move money).
	CanWithdraw bool
	Notice      Notice
	// PSPSteps are the payout calls of the withdrawals shown (live mode).
	PSPSteps []PSPStep
}

// WithdrawForm is the withdraw form's values and errors.
type WithdrawForm struct {
	Amount      string
	PixKey      string
	Description string
	AmountError string
	PixKeyError string
	Error       string
}

// WithdrawalRow is one line of the withdrawals table.
type WithdrawalRow struct {
	ID            string
	Status        string
	AmountLabel   string
	PixKey        string
	PixKeyType    string
	FailureReason string
	CreatedAt     string
	// ContestStatus is its contest's (MED 2.0), "" when never contested;
	// ContestReturnedLabel what came back; CanContest offers the contest
	// (completed, within 80 days, to whom may move money out).
	ContestStatus        string
	ContestReturnedLabel string
	CanContest           bool
}

// ContestReasons are the contest form's grounds, in order.
var ContestReasons = []string{"fraud", "coercion", "operational_failure"}

// LedgerRow is one ledger entry on the Balance page, named by what a
// person recognizes: the order (external_id or description) of the payment
// behind it, or the PIX key a withdrawal went to.
type LedgerRow struct {
	Type        string
	Balance     string
	AmountLabel string
	Credit      bool
	// Source is the order or key in words; SourceURL links the payment.
	Source    string
	SourceURL string
	At        string
}
