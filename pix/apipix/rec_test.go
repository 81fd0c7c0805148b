package apipix_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix/apipix"
	"payments/pix/apipix/sandboxtest"
	"payments/pix/calendar"
)

// Pix Automático through the client against the PSP sandbox: a
// recurrence the payer approves, a cycle's charge refused for a short
// balance, retried and paid, then the payer cancels; every request
// conforms to API Pix 2.9.0.
func TestRecurrenceAndItsChargesAtTheSandbox(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Start(t)
	client, err := apipix.New(sb.ClientConfig())
	require.NoError(t, err)
	ctx := t.Context()
	today := calendar.Today(time.Now())
	rec, err := client.PostRec(ctx, apipix.RecRequest{
		Vinculo:    apipix.RecVinculo{Objeto: "Mensalidade", Contrato: "ALUNO-0042", Devedor: apipix.RecDevedor{CPF: "52998224725", Nome: "Ana Lima"}},
		Calendario: apipix.RecCalendario{DataInicial: today.AddDays(5).String(), Periodicidade: "MENSAL"},
		Valor:      &apipix.RecValor{ValorRec: "490.00"}, PoliticaRetentativa: apipix.RetryThreeIn7})
	require.NoError(t, err)
	require.Regexp(t, `^RR99999999\d{8}[0-9A-Za-z]{11}$`, rec.IDRec)
	require.Equal(t, apipix.RecCreated, rec.Status)

	cobr := apipix.CobRRequest{IDRec: rec.IDRec, Calendario: apipix.CobRCalendario{DataDeVencimento: today.AddDays(5).String()},
		Valor: apipix.Valor{Original: "490.00"}, AjusteDiaUtil: true, Recebedor: &apipix.CobRRecebedor{Conta: sandboxtest.Account, TipoConta: "CORRENTE"}}
	_, err = client.PutCobR(ctx, "cycle1txid0000000000000000000001", cobr)
	var apiErr *apipix.Error
	require.True(t, errors.As(err, &apiErr) && apiErr.Status == 400, "not approved yet: %v", err)

	sb.AnswerRec(rec.IDRec, "approve")
	rec, err = client.GetRec(ctx, rec.IDRec)
	require.NoError(t, err)
	require.Equal(t, apipix.RecApproved, rec.Status)
	require.Equal(t, "JORNADA_2", rec.Ativacao.TipoJornada)

	charge, err := client.PutCobR(ctx, "cycle1txid0000000000000000000001", cobr)
	require.NoError(t, err)
	require.Equal(t, apipix.CobRActive, charge.Status)
	require.Equal(t, "AGENDADA", charge.Tentativas[0].Status)

	sb.SetBalanceShort(true)
	refused := sb.DebitCobR(charge.TxID)
	require.Equal(t, apipix.CobRActive, refused.Status, "retries allowed: still active")
	require.Equal(t, "REJEITADA", refused.Tentativas[0].Status)
	_, err = client.RetryCobR(ctx, charge.TxID, today.AddDays(13).String())
	require.Error(t, err, "past seven days after the due date")
	retried, err := client.RetryCobR(ctx, charge.TxID, today.AddDays(6).String())
	require.NoError(t, err)
	require.Len(t, retried.Tentativas, 2)
	require.Equal(t, "RIFL", retried.Tentativas[1].Tipo)
	sb.SetBalanceShort(false)
	paid := sb.DebitCobR(charge.TxID)
	require.Equal(t, apipix.CobRCompleted, paid.Status)
	require.Len(t, paid.Pix, 1)
	require.Equal(t, "490.00", paid.Pix[0].Valor)

	sb.AnswerRec(rec.IDRec, "cancel")
	rec, err = client.PatchRec(ctx, rec.IDRec, apipix.RecRevision{Status: apipix.RecCanceled})
	require.NoError(t, err, "canceling a canceled recurrence answers it as it is")
	require.Equal(t, apipix.RecCanceled, rec.Status)
	require.Equal(t, "USUARIO_PAGADOR", rec.Encerramento.Cancelamento.Solicitante)
	require.Zero(t, sb.State().Counts["nonconforming"], "every request conformed to API Pix 2.9.0: %s", sb.Logs())
}
