package dashboard

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/views"
)

const balancePageRows = 25

// Session keys of the one-time notice an action leaves for the next page.
const (
	flashNotice    = "notice"
	flashNoticeErr = "notice-error"
)

// Balance handles GET /dashboard/balance: the balance, the withdraw form,
// withdrawals and the latest ledger entries.
func (d *Dashboard) Balance(c *fiber.Ctx) error {
	notice, err := d.takeNotice(c)
	if err != nil {
		return err
	}
	form := views.WithdrawForm{}
	kept, err := d.keptForm(c, "/dashboard/balance")
	if err != nil {
		return err
	}
	if kept != nil {
		// Back from proving their second factor: the form as they filled it.
		form.Amount, form.PixKey, form.Description = kept["amount"], kept["pix_key"], kept["description"]
	}
	return d.renderBalance(c, http.StatusOK, form, notice)
}

func (d *Dashboard) renderBalance(c *fiber.Ctx, status int, form views.WithdrawForm, notice views.Notice) error {
	ctx := c.UserContext()
	scope := dashScope(c)
	b, err := d.Store.Balance(ctx, scope)
	if err != nil {
		return err
	}
	withdrawals, _, err := d.Store.ListWithdrawals(ctx, store.IDListParams{Scope: scope, Limit: balancePageRows})
	if err != nil {
		return err
	}
	entries, err := d.Store.LedgerEntries(ctx, scope, balancePageRows)
	if err != nil {
		return err
	}
	m := views.BalancePage{
		Nav: d.nav(c, "balance"), AvailableLabel: pix.FormatBRL(b.AvailableCents), PendingLabel: pix.FormatBRL(b.PendingCents),
		AvailableNegative: b.AvailableCents < 0, Form: form, CanSimulate: !scope.Livemode && may(c, operations.Withdrawals), CanWithdraw: may(c, operations.Withdrawals), Notice: notice,
	}
	var withdrawalIDs []string
	for _, w := range withdrawals {
		withdrawalIDs = append(withdrawalIDs, w.ID)
		row := views.WithdrawalRow{ID: w.ID, Status: w.Status, AmountLabel: pix.FormatBRL(w.AmountCents),
			PixKey: pix.FormatKey(w.PixKey, pix.KeyType(w.PixKeyType)), PixKeyType: w.PixKeyType, CreatedAt: when(c, w.CreatedAt)}
		if w.FailureReason != nil {
			row.FailureReason = *w.FailureReason
		}
		d.contestRow(c, &row, &w)
		m.Withdrawals = append(m.Withdrawals, row)
	}
	for _, e := range entries {
		row := views.LedgerRow{Type: e.Type, Balance: e.Balance, AmountLabel: pix.FormatBRL(e.AmountCents), Credit: e.AmountCents > 0,
			At: when(c, e.CreatedAt)}
		switch {
		case e.PaymentID != nil:
			row.SourceURL = "/dashboard/payments/" + e.PaymentID.String()
			row.Source = t(c, "activity.payment")
			if e.PaymentExternalID != nil {
				row.Source = t(c, "activity.order", "Order", *e.PaymentExternalID)
			} else if e.PaymentDescription != nil {
				row.Source = *e.PaymentDescription
			}
		case e.WithdrawalPixKey != nil:
			row.Source = t(c, "activity.withdrawal_to", "Key", *e.WithdrawalPixKey)
		default:
			row.Source = e.SourceID
		}
		m.Activity = append(m.Activity, row)
	}
	if scope.Livemode {
		if m.PSPSteps, err = d.pspSteps(c, withdrawalIDs); err != nil {
			return err
		}
	}
	// A withdrawal under way: the page follows it until it ends.
	m.Nav.Pending = slices.ContainsFunc(m.Withdrawals, func(w views.WithdrawalRow) bool { return w.Status == store.WithdrawalPending })
	return reply.Page(c, status, views.BalanceView(m))
}

// CreateWithdrawal handles POST /dashboard/balance/withdrawals. The form
// goes through the API's own rules, so both refuse the same things; then a
// confirmation states the amount, in words, and the key it goes to.
func (d *Dashboard) CreateWithdrawal(c *fiber.Ctx) error {
	form := views.WithdrawForm{Amount: c.FormValue("amount"), PixKey: c.FormValue("pix_key"), Description: c.FormValue("description")}
	w, ok := readWithdrawForm(c, &form)
	scope := dashScope(c)
	if !ok {
		return d.renderBalance(c, http.StatusUnprocessableEntity, form, views.Notice{})
	}
	if !confirmedOnce(c) {
		// More than is available is said beside the amount now, not after
		// the person confirmed.
		ask := *w
		ask.AccountID, ask.Livemode = scope.AccountID, scope.Livemode
		switch err := d.Ops.CheckWithdrawal(c.UserContext(), request.Actor(c), ask); {
		case errors.Is(err, operations.ErrLiveModeOff):
			form.Error = t(c, "error.live_mode_disabled")
			return d.renderBalance(c, http.StatusUnprocessableEntity, form, views.Notice{})
		case errors.Is(err, store.ErrBalanceInsufficient):
			form.AmountError = t(c, "withdraw.more_than_available")
			return d.renderBalance(c, http.StatusUnprocessableEntity, form, views.Notice{})
		case err != nil:
			return d.keepForStepUp(c, err, "/dashboard/balance",
				map[string]string{"amount": form.Amount, "pix_key": form.PixKey, "description": form.Description})
		}
		lines := []views.ConfirmLine{
			{Label: t(c, "field.amount"), Value: pix.FormatBRL(w.AmountCents)},
			{Label: t(c, "confirm.in_words"), Value: pix.AmountInWords(w.AmountCents, views.LocaleOf(c.UserContext()).Lang)},
			{Label: t(c, "confirm.to_key"), Value: pix.FormatKey(w.PixKey, pix.KeyType(w.PixKeyType)) + " (" + views.Label(c.UserContext(), "pix_key_type", w.PixKeyType) + ")"},
		}
		if w.Description != nil {
			lines = append(lines, views.ConfirmLine{Label: t(c, "field.description"), Value: *w.Description})
		}
		fields := []views.Field{{Name: "amount", Value: form.Amount}, {Name: "pix_key", Value: form.PixKey}, {Name: "description", Value: form.Description},
			newConfirmToken()}
		warning := t(c, "withdraw.warning_test")
		if scope.Livemode {
			warning = t(c, "withdraw.warning_live")
		}
		return d.confirm(c, "balance", views.Confirmation{Title: t(c, "withdraw.confirm_title"), Lines: lines, Warning: warning,
			Fields: fields, Button: t(c, "withdraw.confirm_button"), CancelURL: "/dashboard/balance", Danger: true})
	}
	w.AccountID, w.Livemode = scope.AccountID, scope.Livemode
	back := "/dashboard/balance"
	return d.once(c, scope, back, func(ctx context.Context) (outcome, error) {
		if err := d.Ops.CreateWithdrawal(ctx, request.Actor(c), w); err != nil {
			if errors.Is(err, store.ErrBalanceInsufficient) {
				// The balance moved between the confirmation and the click.
				return outcome{Notice: t(c, "withdraw.more_than_available"), Error: true, Location: back}, nil
			}
			return refusal(c, back, reply.Refusal(err))
		}
		return outcome{Notice: t(c, "withdraw.created", "Amount", pix.FormatBRL(w.AmountCents), "Key", pix.FormatKey(w.PixKey, pix.KeyType(w.PixKeyType))),
			Location: back}, nil
	})
}

// readWithdrawForm checks the withdraw form by a withdrawal's rules (the
// API's too), leaving errors beside their fields.
func readWithdrawForm(c *fiber.Ctx, form *views.WithdrawForm) (*store.Withdrawal, bool) {
	w := &store.Withdrawal{Metadata: map[string]string{}}
	cents, ok := pix.ParseBRL(form.Amount)
	switch {
	case !ok:
		form.AmountError = t(c, "form.amount_format")
	case cents < 1:
		form.AmountError = t(c, "form.amount_too_small")
	case cents > store.MaxWithdrawalCents:
		form.AmountError = t(c, "form.amount_too_large", "Max", pix.FormatBRL(store.MaxWithdrawalCents))
	}
	w.AmountCents = cents
	key, kind, ok := pix.NormalizeKey(form.PixKey)
	if !ok || utf8.RuneCountInString(form.PixKey) > store.MaxPixKeyInput {
		form.PixKeyError = t(c, "form.pix_key")
	}
	w.PixKey, w.PixKeyType = key, string(kind)
	if desc := strings.TrimSpace(form.Description); desc != "" {
		if utf8.RuneCountInString(desc) > store.MaxWithdrawalDescription {
			form.Error = t(c, "form.too_long", "Max", store.MaxWithdrawalDescription)
		}
		w.Description = &desc
	}
	return w, form.AmountError == "" && form.PixKeyError == "" && form.Error == ""
}

// SimulateWithdrawal handles POST /dashboard/balance/withdrawals/{id}/{complete|fail}
// in test mode: the PSP's answer, as the test helpers give it.
func (d *Dashboard) SimulateWithdrawal(c *fiber.Ctx) error {
	scope := dashScope(c)
	res := store.WithdrawalResult{Status: store.WithdrawalCompleted}
	switch c.Params("outcome") {
	case "complete":
	case "fail":
		reason := t(c, "withdraw.simulated_failure")
		res = store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason}
	default:
		return reply.NoSuch("page", "", c.Path())
	}
	id := pathParam(c, "id")
	if _, err := d.Ops.SimulateWithdrawalEnd(c.UserContext(), request.Actor(c), scope, id, res); err != nil {
		if errors.Is(err, operations.ErrTestModeOnly) {
			return reply.Refusal(err) // no page offers it: a forged request
		}
		return d.noticeOrErr(c, "/dashboard/balance", reply.Withdrawal(err, id))
	}
	return c.Redirect("/dashboard/balance", http.StatusSeeOther)
}

// noticeOrErr shows a refused action (a client error) as a notice on the
// page at back, in the person's words for its code; anything else is the
// request's error.
func (d *Dashboard) noticeOrErr(c *fiber.Ctx, back string, err error) error {
	o, err := refusal(c, back, err)
	if err != nil {
		return err
	}
	return d.show(c, o)
}

// takeNotice returns the notice an action left for the next page.
func (d *Dashboard) takeNotice(c *fiber.Ctx) (views.Notice, error) {
	if text, err := d.takeFlash(c, flashNoticeErr); err != nil || text != "" {
		return views.Notice{Text: text, Error: true}, err
	}
	text, err := d.takeFlash(c, flashNotice)
	return views.Notice{Text: text}, err
}
