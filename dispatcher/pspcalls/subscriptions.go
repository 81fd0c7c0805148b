package pspcalls

import (
	"context"
	"errors"
	"fmt"
	"time"

	"payments/pix/apipix"
	"payments/pix/calendar"
	"payments/store"
)

// Pix Automático's calls: a live subscription's registration (its
// location, recurrence and, on payer_bank_request, the request to the
// payer's bank), its cancellation, and each cycle's recurring charge with
// its retries; and the reads that confirm what callbacks hint.

// solicitationLifetime is how long the payer's bank shows a request.
const solicitationLifetime = 7 * 24 * time.Hour

// InsufficientBalance is a cycle's failure reason when the payer's bank
// refused the debit for funds (ISO 20022's AM04); other refusals keep the
// PSP's code.
const InsufficientBalance = "insufficient_balance"

// createRec registers a live subscription. Each step is kept as it
// succeeds, so a retry takes up where the last attempt stopped: the
// location first (POST /locrec), through which a retry finds a recurrence
// whose answer was lost (GET /locrec/{id}) rather than making a second;
// then the recurrence (POST /rec), on the first-payment journey once its
// first cycle's charge is registered (the recurrence names it); then, on
// payer_bank_request, the request to the payer's bank (POST /solicrec).
// The PSP refusing the recurrence rejects the subscription.
func (w *Worker) createRec(ctx context.Context, c *store.PSPCall) result {
	sub, err := w.store.PublicSubscription(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if sub.Status != store.SubscriptionCreated {
		return done(nil, nil)
	}
	if sub.RecID == nil {
		if res, waiting := w.registerRec(ctx, sub, c.Attempts); waiting {
			return res
		}
		if sub, err = w.store.PublicSubscription(ctx, c.ObjectID); err != nil {
			return again(err, nil, 0)
		}
	}
	if sub.Journey != store.JourneyPayerBank || sub.Status != store.SubscriptionCreated {
		return done(nil, sub)
	}
	return w.solicit(ctx, sub, c.Attempts)
}

// registerRec makes sub's location and recurrence; waiting says the call
// is not done (res says how).
func (w *Worker) registerRec(ctx context.Context, sub *store.Subscription, attempts int) (res result, waiting bool) {
	req := recRequest(sub)
	if sub.FirstPaymentID != nil {
		first, err := w.store.PublicPayment(ctx, sub.FirstPaymentID.String())
		switch {
		case err != nil:
			return again(err, nil, 0), true
		case first.ChargeState == store.ChargeRegistering:
			return again(errors.New("waiting for the first cycle's charge"), nil, 250*time.Millisecond), true
		case first.ChargeState == store.ChargeFailed:
			return w.refuseRec(ctx, sub, errors.New("the PSP refused the first cycle's charge"), nil), true
		}
		req.Ativacao = &apipix.RecAtivacao{DadosJornada: &apipix.RecDadosJornada{TxID: first.CorrelationID}}
	}
	if sub.PSPLocID == nil {
		loc, err := w.client.PostLocRec(ctx)
		if err != nil {
			return again(err, nil, 0), true
		}
		if err := w.store.SetSubscriptionLoc(ctx, sub.ID, loc.ID, loc.Location); err != nil {
			return again(err, nil, 0), true
		}
		sub.PSPLocID, sub.PSPLocation = &loc.ID, &loc.Location
	}
	req.Loc = sub.PSPLocID
	recID := ""
	if attempts > 1 {
		loc, err := w.client.GetLocRec(ctx, *sub.PSPLocID)
		if err != nil {
			return again(err, req, 0), true
		}
		recID = loc.IDRec
	}
	if recID == "" {
		rec, err := w.client.PostRec(ctx, req)
		switch {
		case apipix.Permanent(err):
			return w.refuseRec(ctx, sub, err, req), true
		case err != nil:
			return again(err, req, 0), true
		}
		recID = rec.IDRec
	}
	if _, err := w.store.RegisterRec(ctx, sub.ID, recID); err != nil {
		return again(err, req, 0), true
	}
	return result{}, false
}

// refuseRec ends a subscription whose recurrence the PSP refused.
func (w *Worker) refuseRec(ctx context.Context, sub *store.Subscription, why error, req any) result {
	if _, err := w.store.ApplyRec(ctx, sub.ID, store.RecRejected, ""); err != nil {
		return again(err, req, 0)
	}
	return refused(why, req)
}

// recRequest is sub as POST /rec takes it.
func recRequest(sub *store.Subscription) apipix.RecRequest {
	devedor := apipix.RecDevedor{Nome: truncate(sub.Payer.Name, 140)}
	if len(sub.Payer.Document) == 11 {
		devedor.CPF = sub.Payer.Document
	} else {
		devedor.CNPJ = sub.Payer.Document
	}
	req := apipix.RecRequest{Vinculo: apipix.RecVinculo{Contrato: sub.Contract, Devedor: devedor},
		Calendario:          apipix.RecCalendario{DataInicial: calendar.FromTime(sub.StartDate).String(), Periodicidade: periodicidade[sub.Interval]},
		PoliticaRetentativa: apipix.RetryNotAllowed}
	if sub.Description != nil {
		req.Vinculo.Objeto = *sub.Description
	}
	if sub.EndDate != nil {
		req.Calendario.DataFinal = calendar.FromTime(*sub.EndDate).String()
	}
	if sub.AmountCents != nil {
		req.Valor = &apipix.RecValor{ValorRec: apipix.FormatValor(*sub.AmountCents)}
	}
	if sub.RetryPolicy == store.RetryThreeInSeven {
		req.PoliticaRetentativa = apipix.RetryThreeIn7
	}
	return req
}

var periodicidade = map[string]string{"weekly": "SEMANAL", "monthly": "MENSAL", "quarterly": "TRIMESTRAL", "semiannual": "SEMESTRAL", "annual": "ANUAL"}

// solicit pushes sub's request to the payer's bank account. A request
// refused on a retry was most likely made by the attempt whose answer was
// lost (the PSP keeps one open request per recurrence): it stands.
func (w *Worker) solicit(ctx context.Context, sub *store.Subscription, attempts int) result {
	if sub.Payer.BankAccount == nil {
		return w.refuseRec(ctx, sub, errors.New("payer_bank_request without the payer's bank account"), nil)
	}
	dest := apipix.SolicRecDestinatario{Agencia: sub.Payer.BankAccount.Branch, Conta: sub.Payer.BankAccount.Number,
		ISPBParticipante: sub.Payer.BankAccount.ISPB}
	if len(sub.Payer.Document) == 11 {
		dest.CPF = sub.Payer.Document
	} else {
		dest.CNPJ = sub.Payer.Document
	}
	req := apipix.SolicRecRequest{IDRec: *sub.RecID, Destinatario: dest,
		Calendario: apipix.SolicRecCalendario{DataExpiracaoSolicitacao: w.cfg.Now().Add(solicitationLifetime).UTC().Format(time.RFC3339)}}
	s, err := w.client.PostSolicRec(ctx, req)
	switch {
	case apipix.Permanent(err) && attempts > 1:
		if err := w.store.SolicitedSubscription(ctx, sub.ID, ""); err != nil {
			return again(err, req, 0)
		}
		return done(req, nil)
	case apipix.Permanent(err):
		return w.refuseRec(ctx, sub, err, req)
	case err != nil:
		return again(err, req, 0)
	}
	if err := w.store.SolicitedSubscription(ctx, sub.ID, s.IDSolicRec); err != nil {
		return again(err, req, 0)
	}
	return done(req, s)
}

// checkRec reads a live subscription's recurrence (a callback named it, or
// the reconciler's turn came) and applies where it stands; while it awaits
// a request pushed to the payer's bank, that request too (GET /solicrec).
func (w *Worker) checkRec(ctx context.Context, c *store.PSPCall) result {
	sub, err := w.store.PublicSubscription(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if sub.RecID == nil {
		return done(nil, nil)
	}
	rec, err := w.client.GetRec(ctx, *sub.RecID)
	switch {
	case apipix.Permanent(err):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	status, by := recOutcome(rec)
	if status == "" && sub.SolicRecID != nil {
		// Still awaiting: the request pushed to the payer's bank may have
		// ended unanswered (or refused) without the recurrence saying so yet.
		s, err := w.client.GetSolicRec(ctx, *sub.SolicRecID)
		switch {
		case err != nil && !apipix.Permanent(err):
			return again(err, nil, 0)
		case err == nil && s.Status == apipix.SolicRecRejected:
			status = store.RecRejected
		case err == nil && s.Status == apipix.SolicRecExpired:
			status = store.RecExpired
		}
	}
	if _, err := w.store.ApplyRec(ctx, sub.ID, status, by); err != nil {
		return again(err, nil, 0)
	}
	if err := w.store.MarkRecChecked(ctx, sub.ID); err != nil {
		return again(err, nil, 0)
	}
	return done(nil, rec)
}

// recOutcome is where rec stands, as store.ApplyRec takes it, and who
// canceled it.
func recOutcome(rec *apipix.Rec) (status, canceledBy string) {
	switch rec.Status {
	case apipix.RecApproved:
		return store.RecApproved, ""
	case apipix.RecRejected:
		return store.RecRejected, ""
	case apipix.RecExpired:
		return store.RecExpired, ""
	case apipix.RecCanceled:
		by := store.CanceledByReceiver
		if rec.Encerramento != nil && rec.Encerramento.Cancelamento != nil {
			switch rec.Encerramento.Cancelamento.Solicitante {
			case "USUARIO_PAGADOR", "PSP_PAGADOR":
				by = store.CanceledByPayer
			}
		}
		return store.RecCanceled, by
	}
	return "", ""
}

// cancelRec cancels a subscription's recurrence at the PSP (its receiver
// canceled it): PATCH /solicrec/{id} when a request to the payer's bank
// may still be open (one already answered is refused, and that is fine),
// then PATCH /rec/{idRec}. The PSP cancels its open charges.
func (w *Worker) cancelRec(ctx context.Context, c *store.PSPCall) result {
	sub, err := w.store.PublicSubscription(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if sub.RecID == nil {
		return done(nil, nil)
	}
	if sub.SolicRecID != nil {
		// The request the payer has not answered is withdrawn from their bank.
		rev := apipix.SolicRecRevision{Status: apipix.SolicRecCanceled}
		if _, err := w.client.PatchSolicRec(ctx, *sub.SolicRecID, rev); err != nil && !apipix.Permanent(err) {
			return again(err, rev, 0)
		}
	}
	req := apipix.RecRevision{Status: apipix.RecCanceled}
	rec, err := w.client.PatchRec(ctx, *sub.RecID, req)
	return answered(err, req, rec)
}

// createCobR registers a live cycle's recurring charge: PUT /cobr/{txid},
// the payment's correlation_id, due on the cycle's date (a non-business
// day moves to the next). As with charges, a retry asks first, and a PUT
// refused asks what the PSP holds under the txid; refused for good, the
// cycle is canceled (FailCharge).
func (w *Worker) createCobR(ctx context.Context, c *store.PSPCall) result {
	p, err := w.store.PublicPayment(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if p.ChargeState != store.ChargeRegistering {
		return done(nil, nil)
	}
	sub, err := w.store.PublicSubscription(ctx, *p.SubscriptionID)
	if err != nil {
		return again(err, nil, 0)
	}
	if p.Status != store.StatusPending || sub.RecID == nil {
		if err := w.store.FailCharge(ctx, p.ID); err != nil {
			return again(err, nil, 0)
		}
		return refused(errors.New("the cycle ended before its charge was registered"), nil)
	}
	req := apipix.CobRRequest{IDRec: *sub.RecID, Calendario: apipix.CobRCalendario{DataDeVencimento: p.Cycle.DueDate},
		Valor: apipix.Valor{Original: apipix.FormatValor(p.AmountCents)}, AjusteDiaUtil: true, Recebedor: &w.cfg.Account}
	if p.Description != nil {
		req.InfoAdicional = truncate(*p.Description, 140)
	}
	return registerAtPSP(ctx, w, c, p, req,
		func() (*apipix.CobR, error) { return w.client.GetCobR(ctx, p.CorrelationID) },
		func() (*apipix.CobR, error) { return w.client.PutCobR(ctx, p.CorrelationID, req) },
		func(prior *apipix.CobR) bool {
			return prior.IDRec == req.IDRec && prior.Valor.Original == req.Valor.Original &&
				prior.Calendario.DataDeVencimento == req.Calendario.DataDeVencimento
		},
		func(*apipix.CobR) error { return w.store.RegisterCycleCharge(ctx, p.ID.String()) })
}

// checkCobR reads a live cycle's recurring charge (a callback named it, or
// its date passed) and applies how its attempts went: a paid one's Pix is
// credited (once per endToEndId), refused ones are counted.
func (w *Worker) checkCobR(ctx context.Context, c *store.PSPCall) result {
	p, err := w.store.PublicPayment(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if p.Status != store.StatusPending || p.Cycle == nil || p.ChargeState != store.ChargeRegistered {
		return done(nil, nil)
	}
	cobr, err := w.client.GetCobR(ctx, p.CorrelationID)
	switch {
	case apipix.Permanent(err):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	for i := range cobr.Pix {
		if err := w.applyPix(ctx, &cobr.Pix[i]); err != nil {
			return again(err, nil, 0)
		}
	}
	st, err := cobrState(cobr)
	if err != nil {
		return refused(err, nil)
	}
	if _, err := w.store.ApplyCobR(ctx, p.ID.String(), st); err != nil {
		return again(err, nil, 0)
	}
	return done(nil, cobr)
}

// cobrState is where cobr stands, as store.ApplyCobR takes it.
func cobrState(cobr *apipix.CobR) (store.CobRState, error) {
	st := store.CobRState{Status: map[string]string{apipix.CobRCreated: store.CobRScheduled, apipix.CobRActive: store.CobRScheduled,
		apipix.CobRCompleted: store.CobRPaid, apipix.CobRRejected: store.CobRRejected, apipix.CobRExpired: store.CobRRejected,
		apipix.CobRCanceled: store.CobRCanceled}[cobr.Status]}
	if st.Status == "" {
		return st, fmt.Errorf("psp: cobr %s has an unknown status %q", cobr.TxID, cobr.Status)
	}
	for _, t := range cobr.Tentativas {
		if t.Status != "REJEITADA" {
			continue
		}
		date, err := calendar.ParseDate(t.DataLiquidacao)
		if err != nil {
			return st, fmt.Errorf("psp: cobr %s: attempt's date: %w", cobr.TxID, err)
		}
		st.RefusedDates = append(st.RefusedDates, date)
		st.Reason = "payer_bank_refused"
		if t.Rejeicao != nil && t.Rejeicao.Codigo == "AM04" {
			st.Reason = InsufficientBalance
		}
	}
	return st, nil
}

// retryCobR asks the payer's bank for another attempt at a cycle whose
// debit was refused, on the date the policy set: POST
// /cobr/{txid}/retentativa/{data}. A retry already scheduled (this call
// made before, its answer lost) is the same; refused for good, the cycle
// failed.
func (w *Worker) retryCobR(ctx context.Context, c *store.PSPCall) result {
	p, err := w.store.PublicPayment(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if p.Status != store.StatusPending || p.Cycle == nil || p.Cycle.Status != store.CycleRetrying || p.Cycle.NextAttemptDate == nil {
		return done(nil, nil)
	}
	date := *p.Cycle.NextAttemptDate
	cobr, err := w.client.RetryCobR(ctx, p.CorrelationID, date)
	if apipix.Permanent(err) {
		prior, getErr := w.client.GetCobR(ctx, p.CorrelationID)
		if getErr != nil && !apipix.Permanent(getErr) {
			return again(getErr, nil, 0)
		}
		if getErr == nil && len(prior.Tentativas) > 0 {
			last := prior.Tentativas[len(prior.Tentativas)-1]
			if last.DataLiquidacao == date && last.Status == "AGENDADA" {
				return done(nil, prior)
			}
		}
		st := store.CobRState{Status: store.CobRRejected}
		if getErr == nil {
			if st, getErr = cobrState(prior); getErr == nil {
				st.Status = store.CobRRejected
			}
		}
		if _, aerr := w.store.ApplyCobR(ctx, p.ID.String(), st); aerr != nil {
			return again(aerr, nil, 0)
		}
		return refused(err, nil)
	}
	if err != nil {
		return again(err, nil, 0)
	}
	return done(nil, cobr)
}
