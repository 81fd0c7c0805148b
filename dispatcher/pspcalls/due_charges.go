package pspcalls

import (
	"context"
	"errors"
	"fmt"

	"payments/pix/apipix"
	"payments/store"
)

// cobvRequest is the due-date charge p as API Pix's PUT /cobv/{txid} takes
// it: its due date and days payable after, its terms as CobVValor, and its
// payer (required by cobv).
func (w *Worker) cobvRequest(p *store.Payment) apipix.CobVRequest {
	days := p.DueTerms.DaysAfterDue
	valor := p.DueTerms.Valor(p.AmountCents)
	req := apipix.CobVRequest{Calendario: &apipix.CalendarioV{DataDeVencimento: p.DueTerms.DueDate, ValidadeAposVencimento: &days},
		Devedor: devedor(p), Valor: &valor, Chave: w.cfg.Key}
	if p.Description != nil {
		req.SolicitacaoPagador = truncate(*p.Description, 140)
	}
	return req
}

// createDueCharge registers a live due-date charge: PUT /cobv/{txid}. As
// with cob, a PSP that already has the txid (an earlier attempt whose
// answer was lost) is asked for it, and it is the same charge when its
// amount and terms match.
func (w *Worker) createDueCharge(ctx context.Context, c *store.PSPCall, p *store.Payment) result {
	if p.Status != store.StatusPending || !w.cfg.Now().Before(p.ExpiresAt) {
		if err := w.store.FailCharge(ctx, p.ID); err != nil {
			return again(err, nil, 0)
		}
		return refused(errors.New("the payment ended before its charge was registered"), nil)
	}
	req := w.cobvRequest(p)
	same := func(prior *apipix.CobV) bool {
		return prior.Valor.Original == req.Valor.Original && prior.Chave == req.Chave &&
			prior.Calendario.DataDeVencimento == req.Calendario.DataDeVencimento
	}
	var charge *apipix.CobV
	var err error
	if c.Attempts > 1 {
		prior, getErr := w.client.GetCobV(ctx, p.CorrelationID)
		switch {
		case getErr == nil && same(prior):
			charge = prior
		case getErr != nil && !errors.Is(getErr, apipix.ErrNotFound):
			return again(getErr, req, 0)
		}
	}
	if charge == nil {
		charge, err = w.client.PutCobV(ctx, p.CorrelationID, req)
	}
	if apipix.Permanent(err) {
		prior, getErr := w.client.GetCobV(ctx, p.CorrelationID)
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
	case charge.PixCopiaECola == "":
		return again(errors.New("the PSP's due-date charge has no pixCopiaECola"), req, 0)
	}
	if err := w.store.RegisterCharge(ctx, p.ID, charge.PixCopiaECola); err != nil {
		return again(err, req, 0)
	}
	return done(req, charge)
}
