package pspcalls

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"payments/pix/apipix"
	"payments/store"
)

// MED 2.0 for money received: the PSP says an infração opened or moved on
// (its callback, or a defense's answer); the dispute follows what it reads.

// checkInfracao reads the infração the call names and brings its dispute
// to it: opened (holding what it claims of what is left), its stage, its
// decision.
func (w *Worker) checkInfracao(ctx context.Context, c *store.PSPCall) result {
	inf, err := w.client.GetInfracao(ctx, c.ObjectID)
	switch {
	case apipix.Permanent(err):
		return refused(err, nil)
	case err != nil:
		return again(err, nil, 0)
	}
	if err := w.applyInfracao(ctx, inf); err != nil {
		return again(err, nil, 0)
	}
	return done(nil, inf)
}

// sendDefesa sends a live dispute's defense, its files with it, and
// brings the dispute to the infração the PSP answers with.
func (w *Worker) sendDefesa(ctx context.Context, c *store.PSPCall) result {
	if c.AccountID == nil {
		return refused(errors.New("a defense's call names its account"), nil)
	}
	d, err := w.store.LiveDispute(ctx, *c.AccountID, c.ObjectID)
	if err != nil {
		return again(err, nil, 0)
	}
	if d.PSPReference == nil || d.DefenseText == nil {
		return refused(errors.New("the dispute has no infração or no defense"), nil)
	}
	req := apipix.DefesaRequest{Justificativa: *d.DefenseText, Anexos: []apipix.Anexo{}}
	for _, e := range d.Evidence {
		req.Anexos = append(req.Anexos, apipix.Anexo{Nome: e.FileName, Tipo: e.ContentType, Conteudo: base64.StdEncoding.EncodeToString(e.Content)})
	}
	inf, err := w.client.PostDefesa(ctx, *d.PSPReference, req)
	// The call's record keeps the defense without the files' bytes.
	recorded := map[string]any{"idInfracao": *d.PSPReference, "justificativa": req.Justificativa, "anexos": len(req.Anexos)}
	switch {
	case apipix.Permanent(err):
		return refused(err, recorded)
	case err != nil:
		return again(err, recorded, 0)
	}
	if err := w.applyInfracao(ctx, inf); err != nil {
		return again(err, recorded, 0)
	}
	return done(recorded, inf)
}

// applyInfracao brings the dispute of inf to it, as the PSP's word. An
// infração on a Pix that paid none of the service's charges changes
// nothing; nor does one the dispute has moved past (a decision is final).
func (w *Worker) applyInfracao(ctx context.Context, inf *apipix.Infracao) error {
	in, err := disputeOf(inf)
	if err != nil {
		w.log.Error("psp: an infração the service cannot read", "id_infracao", inf.IDInfracao, "error", err)
		return nil
	}
	_, _, err = w.store.ApplyPSPDisputeAudited(store.WithActor(ctx, store.ActorPSP), in)
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		w.log.Warn("psp: an infração on a Pix that paid no charge here", "id_infracao", inf.IDInfracao, "end_to_end_id", inf.EndToEndID)
		return nil
	case errors.As(err, &invalid):
		w.log.Error("psp: an infração moved back from where its dispute is", "id_infracao", inf.IDInfracao, "dispute_status", invalid.Status)
		return nil
	}
	return err
}

// motivos are the PSP's grounds as the service's reasons.
var motivos = map[string]string{
	apipix.MotivoFraude: "fraud", apipix.MotivoCoacao: "coercion", apipix.MotivoFalhaOperacional: "operational_failure",
}

// disputeOf is an infração as the service's dispute: its reason, what it
// claims, the merchant's deadline, its stage, and its status (DECIDIDA:
// lost when the money goes back, won when the merchant keeps it).
func disputeOf(inf *apipix.Infracao) (store.PSPDispute, error) {
	reason, ok := motivos[inf.Motivo]
	if !ok {
		return store.PSPDispute{}, fmt.Errorf("unknown motivo %q", inf.Motivo)
	}
	claimed, err := apipix.ParseValor(inf.Valor)
	if err != nil {
		return store.PSPDispute{}, fmt.Errorf("valor: %w", err)
	}
	respondBy, err := time.Parse(time.RFC3339, inf.PrazoDefesa)
	if err != nil {
		return store.PSPDispute{}, fmt.Errorf("prazoDefesa: %w", err)
	}
	out := store.PSPDispute{Reference: inf.IDInfracao, EndToEndID: inf.EndToEndID, Reason: reason, AmountCents: claimed,
		RespondBy: &respondBy, Status: store.DisputeOpen}
	switch inf.Situacao {
	case apipix.InfracaoBloqueada:
		out.Stage = store.StageBlocked
	case apipix.InfracaoEmAnalise:
		out.Stage = store.StageUnderReview
	case apipix.InfracaoDecidida:
		switch inf.Resultado {
		case apipix.ResultadoDevolver:
			out.Status = store.DisputeLost
		case apipix.ResultadoManter:
			out.Status = store.DisputeWon
		default:
			return store.PSPDispute{}, fmt.Errorf("unknown resultado %q", inf.Resultado)
		}
	default:
		return store.PSPDispute{}, fmt.Errorf("unknown situacao %q", inf.Situacao)
	}
	return out, nil
}
