package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"payments/pix"
	"payments/store"
	"payments/views"
	"payments/web/reply"
)

const (
	balancePageRows = 25
	flashNotice     = "notice"
	flashNoticeErr  = "notice-error"
)

// Balance handles GET /dashboard/balance: the balance, the withdraw form,
// withdrawals and the latest ledger entries.
func (d *Dashboard) Balance(c *fiber.Ctx) error {
	notice, err := d.takeNotice(c)
	if err != nil {
		return err
	}
	return d.renderBalance(c, http.StatusOK, views.WithdrawForm{}, notice)
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
		AvailableNegative: b.AvailableCents < 0, Form: form, CanSimulate: !scope.Livemode, Notice: notice,
	}
	var withdrawalIDs []string
	for _, w := range withdrawals {
		withdrawalIDs = append(withdrawalIDs, w.ID)
		row := views.WithdrawalRow{ID: w.ID, Status: w.Status, AmountLabel: pix.FormatBRL(w.AmountCents), PixKey: w.PixKey,
			PixKeyType: w.PixKeyType, CreatedAt: views.FormatTime(w.CreatedAt)}
		if w.FailureReason != nil {
			row.FailureReason = *w.FailureReason
		}
		m.Withdrawals = append(m.Withdrawals, row)
	}
	for _, e := range entries {
		row := views.LedgerRow{Type: e.Type, Balance: e.Balance, AmountLabel: pix.FormatBRL(e.AmountCents), Credit: e.AmountCents > 0,
			SourceID: e.SourceID, At: views.FormatTime(e.CreatedAt)}
		if _, ok := store.ParsePaymentID(e.SourceID); ok {
			row.SourceURL = "/dashboard/payments/" + e.SourceID
		}
		m.Activity = append(m.Activity, row)
	}
	if scope.Livemode {
		if m.PSPSteps, err = d.pspSteps(ctx, withdrawalIDs); err != nil {
			return err
		}
	}
	return reply.Page(c, status, views.BalanceView(m))
}

// CreateWithdrawal handles POST /dashboard/balance/withdrawals. The form
// goes through the API's own validation, so both refuse the same things.
func (d *Dashboard) CreateWithdrawal(c *fiber.Ctx) error {
	form := views.WithdrawForm{Amount: c.FormValue("amount"), PixKey: c.FormValue("pix_key"), Description: c.FormValue("description")}
	w, ok := readWithdrawForm(&form)
	if !ok {
		return d.renderBalance(c, http.StatusUnprocessableEntity, form, views.Notice{})
	}
	scope := dashScope(c)
	if d.liveModeOff(scope) {
		form.Error = "Live mode is off on this service: no payment service provider is configured."
		return d.renderBalance(c, http.StatusForbidden, form, views.Notice{})
	}
	w.AccountID, w.Livemode = scope.AccountID, scope.Livemode
	if err := d.Store.CreateWithdrawal(c.UserContext(), w); err != nil {
		if errors.Is(err, store.ErrBalanceInsufficient) {
			form.AmountError = "That is more than the available balance."
			return d.renderBalance(c, http.StatusUnprocessableEntity, form, views.Notice{})
		}
		return err
	}
	if err := d.setFlash(c, flashNotice, "Withdrawal of "+pix.FormatBRL(w.AmountCents)+" to "+w.PixKey+" created; it is pending until the PSP confirms it."); err != nil {
		return err
	}
	return c.Redirect("/dashboard/balance", http.StatusSeeOther)
}

// readWithdrawForm checks the withdraw form by a withdrawal's rules (the
// API's too), leaving errors beside their fields.
func readWithdrawForm(form *views.WithdrawForm) (*store.Withdrawal, bool) {
	w := &store.Withdrawal{Metadata: map[string]string{}}
	cents, ok := pix.ParseBRL(form.Amount)
	switch {
	case !ok:
		form.AmountError = "Type an amount in reais, like 1.234,56."
	case cents < 1:
		form.AmountError = "amount_cents must be at least 1."
	case cents > store.MaxWithdrawalCents:
		form.AmountError = fmt.Sprintf("amount_cents must be at most %d.", int64(store.MaxWithdrawalCents))
	}
	w.AmountCents = cents
	key, kind, ok := pix.NormalizeKey(form.PixKey)
	if !ok || utf8.RuneCountInString(form.PixKey) > store.MaxPixKeyInput {
		form.PixKeyError = "Use a CPF or CNPJ, an e-mail, a phone as +5561988880000, or a random key."
	}
	w.PixKey, w.PixKeyType = key, string(kind)
	if desc := form.Description; strings.TrimSpace(desc) != "" {
		switch {
		case strings.ContainsRune(desc, 0):
			form.Error = "description must not contain NUL characters."
		case utf8.RuneCountInString(desc) > store.MaxWithdrawalDescription:
			form.Error = fmt.Sprintf("description must be at most %d characters.", store.MaxWithdrawalDescription)
		}
		w.Description = &desc
	}
	return w, form.AmountError == "" && form.PixKeyError == "" && form.Error == ""
}

// SimulateWithdrawal handles POST /dashboard/balance/withdrawals/{id}/{complete|fail}
// in test mode: the PSP's answer, as the test helpers give it.
func (d *Dashboard) SimulateWithdrawal(c *fiber.Ctx) error {
	scope := dashScope(c)
	if scope.Livemode {
		return reply.TestModeOnly("Withdrawals can only be simulated in test mode.")
	}
	res := store.WithdrawalResult{Status: store.WithdrawalCompleted}
	switch c.Params("outcome") {
	case "complete":
	case "fail":
		reason := "Failed by simulation."
		res = store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason}
	default:
		return reply.NoSuch("page", "", c.Path())
	}
	id := pathParam(c, "id")
	if _, _, err := d.Store.FinishWithdrawal(c.UserContext(), &scope, id, res); err != nil {
		return d.noticeOrErr(c, "/dashboard/balance", reply.Withdrawal(err, id))
	}
	return c.Redirect("/dashboard/balance", http.StatusSeeOther)
}

// noticeOrErr shows a refused action (a client error) as a notice on the
// page at back; anything else is the request's error.
func (d *Dashboard) noticeOrErr(c *fiber.Ctx, back string, err error) error {
	var apiErr *reply.Error
	if errors.As(err, &apiErr) && apiErr.Status < http.StatusInternalServerError {
		if ferr := d.setFlash(c, flashNoticeErr, apiErr.Message); ferr != nil {
			return ferr
		}
		return c.Redirect(back, http.StatusSeeOther)
	}
	return err
}

// takeNotice returns the notice an action left for the next page.
func (d *Dashboard) takeNotice(c *fiber.Ctx) (views.Notice, error) {
	if text, err := d.takeFlash(c, flashNoticeErr); err != nil || text != "" {
		return views.Notice{Text: text, Error: true}, err
	}
	text, err := d.takeFlash(c, flashNotice)
	return views.Notice{Text: text}, err
}
