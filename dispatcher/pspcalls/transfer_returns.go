package pspcalls

import (
	"context"

	"payments/pix/apipix"
	"payments/store"
)

// returnTransfer returns a received transfer that paid nothing, in full:
// PUT /pix/{e2eid}/devolucao/{id} with the return's id, asked again (the
// same id and body answer the same devolução) until it has ended. It
// records the end, returned or not; the PSP refusing it fails the return,
// which the merchant may ask again.
func (w *Worker) returnTransfer(ctx context.Context, c *store.PSPCall) result {
	n, err := w.store.PixNotification(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if n.ReturnStatus == nil || *n.ReturnStatus != store.TransferReturnPending || n.ReturnID == nil {
		return done(nil, nil)
	}
	req := apipix.DevolucaoRequest{Valor: apipix.FormatValor(n.AmountCents), Descricao: "Pix devolvido: não corresponde a uma cobrança"}
	d, err := w.client.PutDevolucao(ctx, n.EndToEndID, *n.ReturnID, req)
	switch {
	case apipix.Permanent(err):
		if ferr := w.store.FinishTransferReturn(ctx, n.EndToEndID, false, "", "The PSP refused the devolução: "+err.Error()); ferr != nil {
			return again(ferr, req, 0)
		}
		return refused(err, req)
	case err != nil:
		return again(err, req, 0)
	}
	switch d.Status {
	case apipix.DevolucaoReturned:
		err = w.store.FinishTransferReturn(ctx, n.EndToEndID, true, d.RtrID, "")
	case apipix.DevolucaoNotDone:
		reason := "The payer's bank did not accept the devolução."
		if d.Motivo != "" {
			reason = d.Motivo
		}
		err = w.store.FinishTransferReturn(ctx, n.EndToEndID, false, d.RtrID, reason)
	default:
		return again(nil, req, checkDelay(c.Attempts))
	}
	if err != nil {
		return again(err, req, 0)
	}
	return done(req, d)
}
