package pspcalls

import (
	"context"
	"errors"

	"payments/pix/apipix"
	"payments/store"
)

// cobvRequest is the due-date charge p as API Pix's PUT /cobv/{txid} takes
// it: its due date and days payable after, its terms as CobVValor, and its
// payer (required by cobv).
func (w *Worker) cobvRequest(p *store.Payment, merchant string) apipix.CobVRequest {
	days := p.DueTerms.DaysAfterDue
	valor := p.DueTerms.Valor(p.AmountCents)
	return apipix.CobVRequest{Calendario: &apipix.CalendarioV{DataDeVencimento: p.DueTerms.DueDate, ValidadeAposVencimento: &days},
		Devedor: devedor(p), Valor: &valor, Chave: w.cfg.Key, SolicitacaoPagador: payerMessage(merchant, p.Description)}
}

// createDueCharge registers a live due-date charge: PUT /cobv/{txid}. As
// with cob (registerCharge), a PSP that already has the txid is asked for
// it, and it is the same charge when its amount, key and due date match.
func (w *Worker) createDueCharge(ctx context.Context, c *store.PSPCall, p *store.Payment) result {
	if p.Status != store.StatusPending || !w.cfg.Now().Before(p.ExpiresAt) {
		if err := w.store.FailCharge(ctx, p.ID); err != nil {
			return again(err, nil, 0)
		}
		return refused(errors.New("the payment ended before its charge was registered"), nil)
	}
	merchant, err := w.merchant(ctx, p)
	if err != nil {
		return again(err, nil, 0)
	}
	req := w.cobvRequest(p, merchant)
	return registerCharge(ctx, w, c, p, req,
		func() (*apipix.CobV, error) { return w.client.GetCobV(ctx, p.CorrelationID) },
		func() (*apipix.CobV, error) { return w.client.PutCobV(ctx, p.CorrelationID, req) },
		func(prior *apipix.CobV) bool {
			return prior.Valor.Original == req.Valor.Original && prior.Chave == req.Chave &&
				prior.Calendario.DataDeVencimento == req.Calendario.DataDeVencimento
		},
		func(charge *apipix.CobV) string { return charge.PixCopiaECola })
}
