package reply

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"payments/dispatcher"
	"payments/operations"
	"payments/store"
)

// How the store's refusals become client errors, for every caller that
// makes the change: the API, the dashboard and the PSP's callbacks. An error
// that is none of these is returned as it is (a 500).

// Refusal maps the operations' own refusals, the same whatever the change:
// live mode off, a simulation of live data. Any other error is returned as
// it is. Every mapper below starts with it.
func Refusal(err error) error {
	if r := refusal(err); r != nil {
		return r
	}
	return err
}

func refusal(err error) *Error {
	var denied *operations.PermissionError
	var invalid *operations.InputError
	switch {
	case errors.As(err, &denied):
		return PermissionDenied(denied)
	case errors.As(err, &invalid):
		code := invalid.Code
		if code == "" {
			code = "parameter_invalid"
		}
		return InvalidParam(code, invalid.Param, "%s", invalid.Message)
	case errors.Is(err, operations.ErrLiveModeOff):
		return LiveModeOff()
	case errors.Is(err, operations.ErrStepUpRequired):
		return Forbidden("step_up_required", "Confirm your second factor (a code from your authenticator app or a passkey) to do this, then try again.")
	case errors.Is(err, operations.ErrSecondFactorRequired):
		return Forbidden("second_factor_required",
			"Live money moves only for people with two-step verification: enroll an authenticator app or a passkey under Settings, Security.")
	case errors.Is(err, operations.ErrLiveNotActivated):
		return Forbidden("live_mode_not_activated",
			"This account's live mode is not activated yet: the platform's staff turn it on after reviewing the account. Use test mode (sk_test_...) until then.")
	case errors.Is(err, operations.ErrTestModeOnly):
		return TestModeOnly("Test helpers only work with a test mode key (sk_test_...): live objects change only when the PSP says so.")
	}
	return nil
}

// PermissionDenied is the 403 for a change or read the key or person may
// not make: it names the permission needed.
func PermissionDenied(e *operations.PermissionError) *Error {
	if e.Role != "" {
		return Forbidden("permission_denied", fmt.Sprintf("Your role (%s) does not allow this: it needs the %s permission.", e.Role, e.Needed))
	}
	if e.MakerRole == store.RoleGone {
		return Forbidden("permission_denied", fmt.Sprintf("This API key's maker is no longer a member of the account, so the key may not do this (%s): make a new key.", e.Needed))
	}
	if e.MakerRole != "" {
		return Forbidden("permission_denied", fmt.Sprintf("This API key may do no more than the person who made it, whose role (%s) does not have the %s permission this request needs.", e.MakerRole, e.Needed))
	}
	return Forbidden("permission_denied", fmt.Sprintf("This API key does not have the %s permission this request needs.", e.Needed))
}

// LiveModeOff is the 403 for a live change on a service without a PSP.
func LiveModeOff() *Error {
	return Forbidden("live_mode_disabled",
		"Live mode is off on this service: no payment service provider is configured (PSP_BASE_URL). Use a test key (sk_test_...).")
}

// PaymentTransition maps the store's answer to a refused move of payment
// ref towards status target.
func PaymentTransition(err error, ref, target string) error {
	if r := refusal(err); r != nil {
		return r
	}
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuchPayment(ref)
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_invalid_state",
			Message: fmt.Sprintf("This payment is %s and cannot become %s.", invalid.Status, target)}
	case errors.Is(err, store.ErrNotPayableOn):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_not_payable_on_date", Param: "date",
			Message: "This due-date charge cannot be paid on that date: it is after due_date plus days_after_due."}
	}
	return err
}

// Refund maps the store's answer to a refund of payment ref.
func Refund(err error, ref string) error {
	if r := refusal(err); r != nil {
		return r
	}
	var invalid *store.InvalidTransitionError
	switch {
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_not_refundable",
			Message: fmt.Sprintf("This payment is %s; only paid payments can be refunded.", invalid.Status)}
	case errors.Is(err, store.ErrPaymentDisputed):
		return InvalidRequest(http.StatusConflict, "payment_disputed",
			"This payment has an open dispute; its money is held until the dispute closes.")
	case errors.Is(err, store.ErrBalanceInsufficient):
		return BalanceInsufficient()
	case errors.Is(err, store.ErrRefundTooLarge):
		return InvalidParam("amount_too_large", "amount_cents", "amount_cents is more than this payment has left to refund.")
	case errors.Is(err, store.ErrNothingToRefund):
		return InvalidRequest(http.StatusConflict, "payment_not_refundable",
			"This payment's refunds already add up to its amount (some may still be pending).")
	}
	return PaymentTransition(err, ref, store.StatusRefunded)
}

// RefundState maps the store's answer about refund id.
func RefundState(err error, id string) error {
	if r := refusal(err); r != nil {
		return r
	}
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuch("refund", "id", id)
	case errors.As(err, &invalid):
		return InvalidRequest(http.StatusConflict, "refund_invalid_state", "This refund is %s already.", invalid.Status)
	}
	return err
}

// BalanceInsufficient is the 409 for a debit the available balance cannot cover.
func BalanceInsufficient() *Error {
	return InvalidRequest(http.StatusConflict, "balance_insufficient",
		"The available balance does not cover this amount. GET /api/v1/balance shows what is available.")
}

// Dispute maps the store's answer about dispute id.
func Dispute(err error, id string) error {
	if r := refusal(err); r != nil {
		return r
	}
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuch("dispute", "id", id)
	case errors.As(err, &invalid):
		return InvalidRequest(http.StatusConflict, "dispute_invalid_state", "This dispute is %s already.", invalid.Status)
	}
	return err
}

// DefendDispute maps a refused defense of dispute id.
func DefendDispute(err error, id string) error {
	switch {
	case errors.Is(err, store.ErrDisputeDefended):
		return InvalidRequest(http.StatusConflict, "dispute_defended", "This dispute has its defense already: a dispute takes one.")
	case errors.Is(err, store.ErrDefenseTooLate):
		return InvalidRequest(http.StatusConflict, "dispute_deadline_passed", "The deadline to answer this dispute (respond_by) has passed.")
	}
	return Dispute(err, id)
}

// Evidence maps the store's answer about evidence file id.
func Evidence(err error, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return NoSuch("dispute_evidence", "file", id)
	}
	return err
}

// OpenDispute maps a refused dispute on payment ref.
func OpenDispute(err error, ref string) error {
	if r := refusal(err); r != nil {
		return r
	}
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuchPayment(ref)
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_invalid_state",
			Message: fmt.Sprintf("This payment is %s; only paid payments can be disputed.", invalid.Status)}
	case errors.Is(err, store.ErrDisputeAmount):
		return InvalidParam("parameter_invalid", "amount_cents", "amount_cents must be between 1 and what the payment received.")
	}
	return err
}

// Withdrawal maps the store's answer about withdrawal id.
func Withdrawal(err error, id string) error {
	if r := refusal(err); r != nil {
		return r
	}
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuch("withdrawal", "id", id)
	case errors.As(err, &invalid):
		return InvalidRequest(http.StatusConflict, "withdrawal_invalid_state", "This withdrawal is %s already.", invalid.Status)
	}
	return err
}

// PayQRCode maps a refused payment into static code id.
func PayQRCode(err error, id string) error {
	if r := refusal(err); r != nil {
		return r
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuch("pix_qr_code", "id", id)
	case errors.Is(err, store.ErrQRCodeNotPayable):
		return InvalidRequest(http.StatusConflict, "pix_qr_code_inactive", "This static code takes no payment: disabled or past its expiry.")
	case errors.Is(err, store.ErrQRCodeAmount):
		return InvalidParam("amount_invalid", "amount_cents", "amount_cents must be the code's amount (a fixed code), 1 or more.")
	}
	return err
}

// Contest maps a refused contest of withdrawal id, or its result.
func Contest(err error, id string) error {
	switch {
	case errors.Is(err, store.ErrContested):
		return InvalidRequest(http.StatusConflict, "withdrawal_contested", "This withdrawal is contested already.")
	case errors.Is(err, store.ErrContestTooLate):
		return InvalidRequest(http.StatusConflict, "contest_window_passed", "MED takes a contest within 80 days of the transfer: this withdrawal is older.")
	case errors.Is(err, store.ErrContestReturn):
		return InvalidParam("parameter_invalid", "amount_returned_cents", "amount_returned_cents is at most what the withdrawal sent.")
	}
	var invalid *store.InvalidTransitionError
	if errors.As(err, &invalid) && invalid.Object == "withdrawal contest" {
		return InvalidRequest(http.StatusConflict, "contest_invalid_state", "This withdrawal's contest is %s.", invalid.Status)
	}
	return Withdrawal(err, id)
}

// Webhook maps the store's answer about webhook id.
func Webhook(err error, id string) error {
	if r := refusal(err); r != nil {
		return r
	}
	var certErr *dispatcher.CertificateError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuch("webhook", "id", id)
	case errors.Is(err, store.ErrWebhookLimit):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "webhook_limit_reached",
			Message: fmt.Sprintf("An account can have at most %d webhooks (test and live together). Delete one to add another.", store.MaxWebhooksPerAccount)}
	case errors.As(err, &certErr):
		return InvalidParam("parameter_invalid", "mtls."+certErr.Field, "mtls.%s: %s.", certErr.Field, certErr.Problem)
	}
	return err
}

// Replay maps the store's answer to a replay of webhook id's events.
func Replay(err error, id string) error {
	var tooLarge *store.ReplayTooLargeError
	var foreign *store.ReplayTypesError
	switch {
	case errors.Is(err, store.ErrWebhookDisabled):
		return InvalidRequest(http.StatusConflict, "webhook_disabled", "This webhook is disabled: enable it first, then replay.")
	case errors.Is(err, store.ErrReplayRunning):
		return InvalidRequest(http.StatusConflict, "replay_running",
			"A replay of this webhook is running: wait for it to complete (GET /api/v1/webhooks/%s/replays).", id)
	case errors.As(err, &tooLarge):
		return InvalidParam("replay_too_large", "to", "The window holds more than %d events: replay it in shorter windows.", store.MaxReplayEvents)
	case errors.As(err, &foreign):
		return InvalidParam("parameter_invalid", "types", "This webhook does not subscribe to %s.", strings.Join(foreign.Types, ", "))
	}
	return Webhook(err, id)
}

// NoSuchDelivery maps the store's answer about delivery id.
func NoSuchDelivery(err error, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return NoSuch("delivery", "delivery_id", id)
	}
	return err
}
