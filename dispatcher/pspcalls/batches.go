package pspcalls

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"payments/pix/apipix"
	"payments/store"
)

// registerBatch registers a batch's due-date charges at the PSP: PUT
// /lotecobv/{id}, the batch's number. The PSP answers at once and creates
// them after, so their outcome is learned by checkBatch. A batch the PSP
// already has (an earlier attempt whose answer was lost: PSPs refuse a
// batch id twice) is the same batch.
func (w *Worker) registerBatch(ctx context.Context, c *store.PSPCall) result {
	b, err := w.store.PaymentBatchByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	payments, err := w.store.RegisteringDueCharges(ctx, b.ID)
	if err != nil {
		return again(err, nil, 0)
	}
	if len(payments) == 0 {
		return done(nil, nil)
	}
	req := apipix.LoteCobVRequest{Descricao: "Lote " + b.ID}
	if b.Description != nil {
		req.Descricao = truncate(*b.Description, 140)
	}
	merchant, err := w.merchant(ctx, payments[0])
	if err != nil {
		return again(err, nil, 0)
	}
	for _, p := range payments {
		req.CobsV = append(req.CobsV, apipix.LoteCobVItem{TxID: p.CorrelationID, CobVRequest: w.cobvRequest(p, merchant)})
	}
	// Kept without the charges: a thousand of them would bloat the row.
	sent := map[string]any{"id": b.PSPID, "descricao": req.Descricao, "cobsv": len(req.CobsV)}
	err = w.client.PutLoteCobV(ctx, b.PSPID, req)
	if apipix.Permanent(err) {
		if _, getErr := w.client.GetLoteCobV(ctx, b.PSPID); getErr == nil {
			err = nil
		} else if !apipix.Permanent(getErr) {
			return again(fmt.Errorf("%w; and asking for the batch: %w", err, getErr), sent, 0)
		}
	}
	switch {
	case apipix.Permanent(err):
		// The whole batch refused: none of its charges will be payable.
		why := store.ItemError{Type: "api_error", Code: "psp_refused", Message: "The PSP refused the batch: " + apipix.Trouble(err.Error())}
		for _, p := range payments {
			if ferr := w.refuseItem(ctx, p, why); ferr != nil {
				return again(ferr, sent, 0)
			}
		}
		return refused(err, sent)
	case err != nil:
		return again(err, sent, 0)
	}
	if err := w.store.QueueCall(ctx, &b.AccountID, store.CallLoteCobVCheck, b.ID, w.cfg.Now().Add(batchCheckEvery)); err != nil {
		return again(err, sent, 0)
	}
	return done(sent, nil)
}

// batchCheckEvery is how soon a batch's outcome is first asked for.
const batchCheckEvery = 250 * time.Millisecond

// batchFetchers is how many of a batch's charges are read at once.
const batchFetchers = 8

// checkBatch learns how each charge of a batch went: GET /lotecobv/{id},
// then, for each one the PSP created, GET /cobv/{txid} for its code (the
// batch's answer has none), which makes it payable; one the PSP refused
// is failed with the PSP's reason. While some are still processing it
// asks again.
func (w *Worker) checkBatch(ctx context.Context, c *store.PSPCall) result {
	b, err := w.store.PaymentBatchByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	payments, err := w.store.RegisteringDueCharges(ctx, b.ID)
	if err != nil || len(payments) == 0 {
		return pendingOr(err)
	}
	lote, err := w.client.GetLoteCobV(ctx, b.PSPID)
	switch {
	case apipix.Permanent(err):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	byTxID := make(map[string]apipix.LoteCobVStatus, len(lote.CobsV))
	for _, s := range lote.CobsV {
		byTxID[s.TxID] = s
	}
	var (
		mu         sync.Mutex
		firstErr   error
		processing int
		jobs       = make(chan *store.Payment)
		wg         sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		firstErr = errors.Join(firstErr, err)
		mu.Unlock()
	}
	for range batchFetchers {
		wg.Go(func() {
			for p := range jobs {
				charge, err := w.client.GetCobV(ctx, p.CorrelationID)
				if err == nil && charge.PixCopiaECola == "" {
					err = errors.New("the PSP's due-date charge has no pixCopiaECola")
				}
				if err == nil {
					err = w.store.RegisterCharge(ctx, p.ID, charge.PixCopiaECola)
				}
				if err != nil {
					fail(err)
				}
			}
		})
	}
	for _, p := range payments {
		s, ok := byTxID[p.CorrelationID]
		switch {
		case !ok || s.Status == apipix.LoteProcessing:
			processing++
		case s.Status == apipix.LoteCreated:
			jobs <- p
		case s.Status == apipix.LoteRefused:
			why := store.ItemError{Type: "api_error", Code: "psp_refused", Message: "The PSP refused this charge."}
			if s.Problema != nil && s.Problema.Detail != "" {
				why.Message = "The PSP refused this charge: " + s.Problema.Detail
			}
			if err := w.refuseItem(ctx, p, why); err != nil {
				fail(err)
			}
		}
	}
	close(jobs)
	wg.Wait()
	switch {
	case firstErr != nil:
		return again(firstErr, nil, 0)
	case processing > 0:
		return again(nil, nil, min(batchCheckEvery*time.Duration(c.Attempts), 5*time.Second))
	}
	return done(nil, map[string]any{"id": b.PSPID, "cobsv": len(lote.CobsV)})
}

// refuseItem fails a batch's charge the PSP refused, keeping its reason.
func (w *Worker) refuseItem(ctx context.Context, p *store.Payment, why store.ItemError) error {
	if err := w.store.RecordBatchItemRefusal(ctx, p.ID, why); err != nil {
		return err
	}
	return w.store.FailCharge(ctx, p.ID)
}

func pendingOr(err error) result {
	if err != nil {
		return again(err, nil, 0)
	}
	return done(nil, nil)
}
