package pspcalls

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"payments/pix/apipix"
	"payments/pix/calendar"
	"payments/store"
)

// receivedCursor names the reconciler's walk of the PSP's received Pix.
const receivedCursor = "pix.received"

// reconcilePage is how many Pix one page of GET /pix asks for.
const reconcilePage = 100

// reconcileWidth is how many Pix of a page the walk books at once.
const reconcileWidth = 8

// reconcileEvery runs Reconcile at once (after a stop, the walk resumes
// where it stood, so downtime's Pix are found) and then every interval.
func (w *Worker) reconcileEvery(ctx context.Context) {
	t := time.NewTicker(w.cfg.ReconcileInterval)
	defer t.Stop()
	for {
		if err := w.Reconcile(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("psp: reconcile; trying again at the next interval", "error", err.Error())
		}
		if err := w.ReconcileRecurrences(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("psp: reconcile recurrences; trying again at the next interval", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Reconcile walks the Pix the PSP received (GET /pix, page by page) from a
// little before where the last walk ended to now, and books each as a
// confirmed transfer: a Pix whose callback was lost (or never sent) is
// credited here, once per endToEndId like any other. A walk that fails
// leaves the cursor where it was; the next starts from there.
func (w *Worker) Reconcile(ctx context.Context) error {
	ctx = store.WithActor(ctx, store.ActorPSP)
	end := w.cfg.Now().UTC()
	start, err := w.store.Cursor(ctx, receivedCursor)
	if err != nil {
		return err
	}
	if start.IsZero() {
		start = end.Add(-24 * time.Hour)
	}
	start = start.Add(-w.cfg.ReconcileOverlap)
	for page := 0; ; page++ {
		var list *apipix.PixList
		list, err = w.client.ListPix(ctx, start, end, page, reconcilePage)
		if err != nil {
			return err
		}
		booked, err := w.store.BookedEndToEndIDs(ctx, endToEndIDs(list.Pix))
		if err != nil {
			return err
		}
		// A page's new Pix are booked side by side: after a callback outage
		// the walk is what credits them, and each is its own transaction.
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(reconcileWidth)
		for i := range list.Pix {
			if booked[list.Pix[i].EndToEndID] && len(list.Pix[i].Devolucoes) == 0 {
				continue // booked on an earlier walk or by its callback
			}
			g.Go(func() error { return w.applyPix(gctx, &list.Pix[i]) })
		}
		if err := g.Wait(); err != nil {
			return err
		}
		if page+1 >= list.Parametros.Paginacao.QuantidadeDePaginas || len(list.Pix) == 0 {
			break
		}
	}
	return w.store.AdvanceCursor(ctx, receivedCursor, end)
}

func endToEndIDs(pix []apipix.Pix) []string {
	ids := make([]string, len(pix))
	for i := range pix {
		ids[i] = pix[i].EndToEndID
	}
	return ids
}

// recurrencesPerWalk bounds the reads one reconciler's walk queues.
const recurrencesPerWalk = 200

// ReconcileRecurrences queues the reads that find what lost callbacks of
// Pix Automático would hide: each live recurrence that may still change
// (awaiting its payer, or active: the payer may cancel it in their bank)
// read again once per recheck interval, least recently read first; and
// each cycle whose debit or retry was due by today and is still open.
func (w *Worker) ReconcileRecurrences(ctx context.Context) error {
	ctx = store.WithActor(ctx, store.ActorPSP)
	now := w.cfg.Now()
	subs, err := w.store.RecsToCheck(ctx, now.Add(-w.cfg.RecheckInterval), recurrencesPerWalk)
	if err != nil {
		return err
	}
	for i := range subs {
		if err := w.store.QueueCheck(ctx, &subs[i].AccountID, store.CallRecCheck, subs[i].ID); err != nil {
			return err
		}
	}
	cycles, err := w.store.CyclesToCheck(ctx, calendar.Today(now), recurrencesPerWalk)
	if err != nil {
		return err
	}
	for _, c := range cycles {
		if err := w.store.QueueCheck(ctx, &c.AccountID, store.CallCobRCheck, c.ID); err != nil {
			return err
		}
	}
	return nil
}
