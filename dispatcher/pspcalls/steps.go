package pspcalls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"payments/pix/apipix"
	"payments/store"
)

var errUnknownKind = errors.New("psp: unknown kind of call")

// checkEvery is how soon a devolução's or a payout's end is first asked
// for; a callback usually tells sooner (it wakes the check).
const checkEvery = 2 * time.Second

// createCharge registers a live payment's charge: PUT /cob/{txid}, the
// payment's correlation_id. The charge's expiry counts from now, so that
// the PSP ends it when the payment expires, however late the registration.
// A PSP that already has the txid (this call made before, its answer lost)
// is asked for it, and it is the same charge if it matches.
func (w *Worker) createCharge(ctx context.Context, c *store.PSPCall) result {
	p, err := w.store.PublicPayment(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if p.ChargeState != store.ChargeRegistering {
		return done(nil, nil)
	}
	if p.DueTerms != nil {
		return w.createDueCharge(ctx, c, p)
	}
	remaining := int64(p.ExpiresAt.Sub(w.cfg.Now()).Seconds())
	if p.Status != store.StatusPending || remaining <= 0 {
		// Canceled or expired before the PSP had it: it never will.
		if err := w.store.FailCharge(ctx, p.ID); err != nil {
			return again(err, nil, 0)
		}
		return refused(errors.New("the payment ended before its charge was registered"), nil)
	}
	merchant, err := w.merchant(ctx, p)
	if err != nil {
		return again(err, nil, 0)
	}
	req := apipix.CobRequest{Calendario: apipix.Calendario{Expiracao: remaining}, Chave: w.cfg.Key,
		Valor: apipix.Valor{Original: apipix.FormatValor(p.AmountCents)}, SolicitacaoPagador: payerMessage(merchant, p.Description)}
	req.Devedor = devedor(p)
	return registerCharge(ctx, w, c, p, req,
		func() (*apipix.Cob, error) { return w.client.GetCob(ctx, p.CorrelationID) },
		func() (*apipix.Cob, error) { return w.client.PutCob(ctx, p.CorrelationID, req) },
		func(prior *apipix.Cob) bool {
			return prior.Valor.Original == req.Valor.Original && prior.Chave == req.Chave
		},
		func(cob *apipix.Cob) string { return cob.PixCopiaECola })
}

// registerCharge registers the payment p's charge at the PSP with put (its
// request req), and makes the payment payable with the PSP's code. An
// earlier attempt may have created the charge and lost the answer: a
// retry asks first (get), so that it costs one call, not two; and a PUT
// refused (many PSPs refuse a txid twice) asks what the PSP holds under
// the txid, which is the same charge when same says so. While the PSP
// cannot be asked, it tries again; refused for good, the payment's charge
// fails (store.FailCharge).
func registerCharge[T any](ctx context.Context, w *Worker, c *store.PSPCall, p *store.Payment, req any,
	get, put func() (*T, error), same func(*T) bool, code func(*T) string,
) result {
	return registerAtPSP(ctx, w, c, p, req, get, put, same, func(charge *T) error {
		if code(charge) == "" {
			return errors.New("the PSP's charge has no pixCopiaECola")
		}
		return w.store.RegisterCharge(ctx, p.ID, code(charge))
	})
}

// registerAtPSP is registerCharge's flow for any charge the PSP holds
// under the payment's txid (cob, cobv, a cycle's cobr): record keeps what
// the PSP answered; while it fails, the call is tried again.
func registerAtPSP[T any](ctx context.Context, w *Worker, c *store.PSPCall, p *store.Payment, req any,
	get, put func() (*T, error), same func(*T) bool, record func(*T) error,
) result {
	var charge *T
	var err error
	if c.Attempts > 1 {
		prior, getErr := get()
		switch {
		case getErr == nil && same(prior):
			charge = prior
		case getErr != nil && !errors.Is(getErr, apipix.ErrNotFound):
			return again(getErr, req, 0)
		}
	}
	if charge == nil {
		charge, err = put()
	}
	if apipix.Permanent(err) {
		prior, getErr := get()
		switch {
		case getErr == nil && same(prior):
			charge, err = prior, nil
		case getErr != nil && !apipix.Permanent(getErr):
			return again(fmt.Errorf("%w; and asking for the charge: %w", err, getErr), req, 0)
		}
	}
	switch {
	case apipix.Permanent(err):
		if ferr := w.store.FailCharge(ctx, p.ID); ferr != nil {
			return again(ferr, req, 0)
		}
		return refused(err, req)
	case err != nil:
		return again(err, req, 0)
	}
	if err := record(charge); err != nil {
		return again(err, req, 0)
	}
	return done(req, charge)
}

// merchant is the name of the account p charges for.
func (w *Worker) merchant(ctx context.Context, p *store.Payment) (string, error) {
	acct, err := w.store.Account(ctx, p.AccountID)
	if err != nil {
		return "", err
	}
	return acct.Name, nil
}

// payerMessage is a charge's solicitacaoPagador, the text the payer's
// bank shows with it: the merchant's name first (the receiver the bank
// names is the platform, whose key takes the Pix), then what it is for.
func payerMessage(merchant string, description *string) string {
	if description != nil && *description != "" {
		merchant += ": " + *description
	}
	return truncate(merchant, 140)
}

// devedor is whom the payment's charge is addressed to (nil: no one).
func devedor(p *store.Payment) *apipix.Devedor {
	if p.Customer == nil {
		return nil
	}
	d := &apipix.Devedor{Nome: truncate(p.Customer.Name, 200)}
	if len(p.Customer.Document) == 11 {
		d.CPF = p.Customer.Document
	} else {
		d.CNPJ = p.Customer.Document
	}
	return d
}

// removeCharge removes a canceled payment's charge: PATCH /cob/{txid}
// (/cobv/{txid} for a due-date charge, /cobr/{txid} for a subscription's
// cycle debited on its date). A charge the PSP will not remove
// (paid meanwhile: the money is real, and its Pix is credited) is left.
func (w *Worker) removeCharge(ctx context.Context, c *store.PSPCall) result {
	p, err := w.store.PublicPayment(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if p.Cycle != nil && p.BRCode == "" {
		// A cycle debited on its date (no code): its recurring charge.
		req := apipix.CobRevision{Status: apipix.CobRCanceled}
		cobr, err := w.client.PatchCobR(ctx, p.CorrelationID, req)
		return answered(err, req, cobr)
	}
	if p.DueTerms != nil {
		req := apipix.CobVRequest{Status: apipix.CobRemovedByUser}
		cobv, err := w.client.PatchCobV(ctx, p.CorrelationID, req)
		return answered(err, req, cobv)
	}
	req := apipix.CobRevision{Status: apipix.CobRemovedByUser}
	cob, err := w.client.PatchCob(ctx, p.CorrelationID, req)
	return answered(err, req, cob)
}

// confirmTries is how many times a transfer the PSP does not know is asked
// about before the callback that named it is taken for a forgery (the
// reconciler would still book it, were it real).
const confirmTries = 3

// confirmPix confirms a transfer a callback named: GET /pix/{e2eid}. What
// the PSP answers is what is credited (once per endToEndId); a transfer it
// does not know (a forged callback) credits nothing.
func (w *Worker) confirmPix(ctx context.Context, c *store.PSPCall) result {
	pix, err := w.client.GetPix(ctx, c.ObjectID)
	switch {
	case errors.Is(err, apipix.ErrNotFound) && c.Attempts < confirmTries:
		// A PSP may call back a moment before its GET /pix shows the transfer.
		return again(err, nil, 0)
	case errors.Is(err, apipix.ErrNotFound):
		return refused(errors.New("the PSP has no such Pix: nothing credited"), nil)
	case apipix.Permanent(err):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	if err := w.applyPix(ctx, pix); err != nil {
		return again(err, nil, 0)
	}
	return done(nil, pix)
}

// applyPix books a Pix the PSP itself reported (GET /pix/{e2eid} or GET
// /pix): the credit, once per endToEndId, and how its devoluções ended.
func (w *Worker) applyPix(ctx context.Context, pix *apipix.Pix) error {
	cents, err := apipix.ParseValor(pix.Valor)
	if err != nil {
		return fmt.Errorf("psp: pix %s: %w", pix.EndToEndID, err)
	}
	raw, err := json.Marshal(pix)
	if err != nil {
		return fmt.Errorf("psp: pix %s: %w", pix.EndToEndID, err)
	}
	n := &store.PixNotification{EndToEndID: pix.EndToEndID, TxID: pix.TxID, AmountCents: cents, Raw: raw}
	if at, err := time.Parse(time.RFC3339Nano, pix.Horario); err == nil {
		n.SettledAt = &at
	}
	if err := w.store.RecordPixNotification(ctx, n); err != nil {
		return err
	}
	for _, d := range pix.Devolucoes {
		if err := w.applyDevolucao(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// applyDevolucao settles the refund a devolução returns once it ended; a
// devolução the service did not ask for (none of its refunds) is not its business.
func (w *Worker) applyDevolucao(ctx context.Context, d apipix.Devolucao) error {
	res, final := refundResult(d)
	if !final {
		return nil
	}
	r, err := w.store.RefundByDevolucaoID(ctx, d.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	_, _, err = w.store.SettleRefund(ctx, nil, r.ID, res)
	var invalid *store.InvalidTransitionError
	if errors.As(err, &invalid) {
		w.log.Error("psp: a devolução ended otherwise than its refund", "refund_id", r.ID, "status", d.Status, "refund_status", invalid.Status)
		return nil
	}
	return err
}

func refundResult(d apipix.Devolucao) (store.RefundResult, bool) {
	rtr := d.RtrID
	switch d.Status {
	case apipix.DevolucaoReturned:
		return store.RefundResult{Status: store.RefundSucceeded, ReturnID: &rtr}, true
	case apipix.DevolucaoNotDone:
		reason := "The payer's bank did not accept the devolução."
		if d.Motivo != "" {
			reason = d.Motivo
		}
		return store.RefundResult{Status: store.RefundFailed, ReturnID: &rtr, FailureReason: &reason}, true
	}
	return store.RefundResult{}, false
}

// createDevolucao returns a live refund's money: PUT
// /pix/{e2eid}/devolucao/{id}, the id the refund's, so that the same call
// made twice is the same devolução. The PSP refusing it fails the refund
// (its money comes back).
func (w *Worker) createDevolucao(ctx context.Context, c *store.PSPCall) result {
	r, err := w.store.RefundByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if r.Status != store.RefundPending || r.EndToEndID == nil {
		return done(nil, nil)
	}
	req := apipix.DevolucaoRequest{Valor: apipix.FormatValor(r.AmountCents)}
	if r.Description != nil {
		req.Descricao = truncate(*r.Description, 140)
	}
	d, err := w.client.PutDevolucao(ctx, *r.EndToEndID, r.DevolucaoID(), req)
	switch {
	case apipix.Permanent(err):
		reason := "The PSP refused the devolução: " + err.Error()
		if _, _, serr := w.store.SettleRefund(ctx, nil, r.ID, store.RefundResult{Status: store.RefundFailed, FailureReason: &reason}); serr != nil {
			return again(serr, req, 0)
		}
		return refused(err, req)
	case err != nil:
		return again(err, req, 0)
	}
	if err := w.applyDevolucao(ctx, *d); err != nil {
		return again(err, req, 0)
	}
	if _, final := refundResult(*d); !final {
		if err := w.store.QueueCall(ctx, &r.AccountID, store.CallDevolucaoCheck, r.ID, w.cfg.Now().Add(checkEvery)); err != nil {
			return again(err, req, 0)
		}
	}
	return done(req, d)
}

// checkDevolucao asks how a pending devolução ended, until it has.
func (w *Worker) checkDevolucao(ctx context.Context, c *store.PSPCall) result {
	r, err := w.store.RefundByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if r.Status != store.RefundPending || r.EndToEndID == nil {
		return done(nil, nil)
	}
	d, err := w.client.GetDevolucao(ctx, *r.EndToEndID, r.DevolucaoID())
	switch {
	case apipix.Permanent(err) && !errors.Is(err, apipix.ErrNotFound):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	if _, final := refundResult(*d); !final {
		return again(nil, nil, checkDelay(c.Attempts))
	}
	if err := w.applyDevolucao(ctx, *d); err != nil {
		return again(err, nil, 0)
	}
	return done(nil, d)
}

// createPayout pays a live withdrawal out: PUT /v3/gn/pix/{idEnvio}, the
// id the withdrawal's, from the platform's key to the merchant's. The PSP
// refusing it fails the withdrawal (its money comes back).
func (w *Worker) createPayout(ctx context.Context, c *store.PSPCall) result {
	wd, err := w.store.WithdrawalByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if wd.Status != store.WithdrawalPending {
		return done(nil, nil)
	}
	req := apipix.PayoutRequest{Valor: apipix.FormatValor(wd.AmountCents), Pagador: apipix.PayoutKey{Chave: w.cfg.Key},
		Favorecido: apipix.PayoutKey{Chave: wd.PixKey}}
	if wd.Description != nil {
		req.InfoPagador = truncate(*wd.Description, 140)
	}
	p, err := w.client.PutPayout(ctx, wd.PayoutID(), req)
	switch {
	case apipix.Permanent(err):
		reason := "The PSP refused the payout: " + err.Error()
		if serr := w.finishWithdrawal(ctx, wd.ID, store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason}); serr != nil {
			return again(serr, req, 0)
		}
		return refused(err, req)
	case err != nil:
		return again(err, req, 0)
	}
	if err := w.applyPayout(ctx, wd.ID, p); err != nil {
		return again(err, req, 0)
	}
	if p.Status == apipix.PayoutProcessing {
		if err := w.store.QueueCall(ctx, &wd.AccountID, store.CallPayoutCheck, wd.ID, w.cfg.Now().Add(checkEvery)); err != nil {
			return again(err, req, 0)
		}
	}
	return done(req, p)
}

// checkPayout asks how a pending payout ended, until it has.
func (w *Worker) checkPayout(ctx context.Context, c *store.PSPCall) result {
	wd, err := w.store.WithdrawalByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if wd.Status != store.WithdrawalPending {
		return done(nil, nil)
	}
	p, err := w.client.GetPayout(ctx, wd.PayoutID())
	switch {
	case apipix.Permanent(err) && !errors.Is(err, apipix.ErrNotFound):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	if p.Status == apipix.PayoutProcessing {
		return again(nil, nil, checkDelay(c.Attempts))
	}
	if err := w.applyPayout(ctx, wd.ID, p); err != nil {
		return again(err, nil, 0)
	}
	return done(nil, p)
}

// applyPayout ends a withdrawal as its payout ended.
func (w *Worker) applyPayout(ctx context.Context, withdrawalID string, p *apipix.Payout) error {
	switch p.Status {
	case apipix.PayoutDone:
		e2e := p.E2EID
		return w.finishWithdrawal(ctx, withdrawalID, store.WithdrawalResult{Status: store.WithdrawalCompleted, EndToEndID: &e2e})
	case apipix.PayoutNotDone:
		reason := "The payout was not made."
		if p.Motivo != "" {
			reason = p.Motivo
		}
		return w.finishWithdrawal(ctx, withdrawalID, store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason})
	}
	return nil
}

func (w *Worker) finishWithdrawal(ctx context.Context, id string, res store.WithdrawalResult) error {
	_, _, err := w.store.FinishWithdrawal(ctx, nil, id, res)
	var invalid *store.InvalidTransitionError
	if errors.As(err, &invalid) {
		w.log.Error("psp: a payout ended otherwise than its withdrawal", "withdrawal_id", id, "withdrawal_status", invalid.Status)
		return nil
	}
	return err
}

// answered is a call whose answer ends it: refused for good, tried
// again, or done.
func answered(err error, req, resp any) result {
	switch {
	case apipix.Permanent(err):
		return refused(err, req)
	case err != nil:
		return again(err, req, 0)
	}
	return done(req, resp)
}

// checkDelay spaces the checks of something still processing.
func checkDelay(attempt int) time.Duration {
	return min(retryDelay(store.CallDevolucaoCheck, attempt+3), 5*time.Minute)
}

// truncate cuts s to at most n characters (API Pix counts characters).
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
