package pspcalls

import (
	"context"
	"errors"
	"time"

	"payments/pix/apipix"
	"payments/store"
)

// MED 2.0 for money sent: a contested withdrawal's request for a return,
// sent to the PSP and followed to its end.

// motivosOf are the service's reasons as the PSP's grounds.
var motivosOf = map[string]string{
	"fraud": apipix.MotivoFraude, "coercion": apipix.MotivoCoacao, "operational_failure": apipix.MotivoFalhaOperacional,
}

// requestMED sends a contested withdrawal's request for a return (by its
// payout's id: the same request again is the same), then follows it.
func (w *Worker) requestMED(ctx context.Context, c *store.PSPCall) result {
	wd, err := w.store.WithdrawalByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if wd.ContestStatus == nil || wd.EndToEndID == nil {
		return refused(errors.New("the withdrawal has no contest or no endToEndId"), nil)
	}
	req := apipix.MEDRequest{EndToEndID: *wd.EndToEndID, Motivo: motivosOf[*wd.ContestReason], Descricao: *wd.ContestDescription}
	m, err := w.client.PutMED(ctx, wd.PayoutID(), req)
	switch {
	case apipix.Permanent(err):
		return refused(err, req)
	case err != nil:
		return again(err, req, 0)
	}
	if err := w.store.SetContestReference(ctx, wd.ID, m.IDSolicitacao); err != nil {
		return again(err, req, 0)
	}
	if m.Situacao != apipix.MEDEmAnalise {
		if err := w.applyMED(ctx, wd.ID, m); err != nil {
			return again(err, req, 0)
		}
		return done(req, m)
	}
	// Followed until it ends: a callback wakes the check sooner.
	if err := w.store.QueueCall(ctx, &wd.AccountID, store.CallMEDCheck, wd.ID, time.Now().Add(checkDelay(0))); err != nil {
		return again(err, req, 0)
	}
	return done(req, m)
}

// checkMED reads where a contested withdrawal's request stands and ends
// the contest once the PSP has.
func (w *Worker) checkMED(ctx context.Context, c *store.PSPCall) result {
	wd, err := w.store.WithdrawalByID(ctx, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if wd.ContestStatus == nil || *wd.ContestStatus != store.ContestPending {
		return done(nil, nil)
	}
	m, err := w.client.GetMED(ctx, wd.PayoutID())
	switch {
	case apipix.Permanent(err) && !errors.Is(err, apipix.ErrNotFound):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	if m.Situacao == apipix.MEDEmAnalise {
		return again(nil, nil, checkDelay(c.Attempts))
	}
	if err := w.applyMED(ctx, wd.ID, m); err != nil {
		return again(err, nil, 0)
	}
	return done(nil, m)
}

// applyMED ends the contest of withdrawal id as the PSP decided: what
// came back is credited.
func (w *Worker) applyMED(ctx context.Context, id string, m *apipix.MEDSolicitacao) error {
	var returned int64
	if m.Situacao != apipix.MEDRecusada {
		v, err := apipix.ParseValor(m.ValorDevolvido)
		if err != nil {
			w.log.Error("psp: a return the service cannot read", "withdrawal_id", id, "valor_devolvido", m.ValorDevolvido)
			return nil
		}
		returned = v
	}
	_, _, err := w.store.ResolveContest(store.WithActor(ctx, store.ActorPSP), nil, id,
		store.ContestResult{ReturnedCents: returned, Reference: &m.IDSolicitacao})
	var invalid *store.InvalidTransitionError
	if errors.As(err, &invalid) || errors.Is(err, store.ErrContestReturn) {
		w.log.Error("psp: a contest ended otherwise than the service has it", "withdrawal_id", id, "error", err)
		return nil
	}
	return err
}
