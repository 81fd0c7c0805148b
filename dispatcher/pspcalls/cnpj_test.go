package pspcalls_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix/apipix"
	"payments/pix/apipix/sandboxtest"
	"payments/pix/calendar"
	"payments/web/webtest"
)

// receitaCNPJ is the Receita's published example of an alphanumeric CNPJ
// (IN RFB 2.229/2024), as its compact, upper-case form.
const receitaCNPJ = "12ABC34501DE35"

// An alphanumeric CNPJ goes wherever a CNPJ goes in live money: a
// due-date charge's payer (the PSP's cobv devedor), a Pix Automático
// payer (the rec's devedor) and a withdrawal's Pix key (the payout's
// favorecido), typed in lower case with its punctuation and sent in the
// DICT's form; and the PSP sandbox refuses one whose check digits are
// wrong, as a PSP would.
func TestAlphanumericCNPJsReachThePSP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dumpCalls(t, s))
			t.Log(s.PSP.Logs())
		}
	})
	ctx := t.Context()
	due := calendar.Today(time.Now()).AddDays(10)
	charge := s.CreateLivePayment(map[string]any{"amount_cents": 150_000, "description": "Fatura", "due_date": due.String(),
		"customer": map[string]any{"name": "Nova Tech Ltda", "email": "financeiro@novatech.example", "document": "12.abc.345/01de-35"}})
	require.Equal(t, receitaCNPJ, charge["customer"].(map[string]any)["document"])
	cobv, err := s.PSP.Client.GetCobV(ctx, charge["correlation_id"].(string))
	require.NoError(t, err)
	require.Equal(t, &apipix.Devedor{CNPJ: receitaCNPJ, Nome: "Nova Tech Ltda"}, cobv.Devedor)

	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: map[string]any{
		"payer": map[string]any{"name": "Nova Tech Ltda", "document": "12ABC34501de35"}, "contract": "SAAS-7",
		"description": "Assinatura", "interval": "monthly", "start_date": calendar.Today(time.Now()).AddDays(3).String(),
		"amount_cents": 9_900, "journey": "authorization_only"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	sub := r.JSON(t)
	require.Equal(t, receitaCNPJ, sub["payer"].(map[string]any)["document"])
	rec, err := s.PSP.Client.GetRec(ctx, sub["rec_id"].(string))
	require.NoError(t, err)
	require.Equal(t, apipix.RecDevedor{CNPJ: receitaCNPJ, Nome: "Nova Tech Ltda"}, rec.Vinculo.Devedor)

	livePaid(t, s, 20_000)
	wd := withdraw(t, s, 5_000, "12.abc.345/01de-35")
	require.Equal(t, receitaCNPJ, wd["pix_key"])
	require.Equal(t, "cnpj", wd["pix_key_type"])
	waitForWithdrawal(t, s, wd["id"].(string), "completed")

	// Wrong check digits: refused by the service before anything is stored
	// or sent, with the field named.
	for _, bad := range []webtest.Request{
		{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey, Body: map[string]any{"amount_cents": 1_000, "due_date": due.String(),
			"customer": map[string]any{"name": "Nova Tech Ltda", "email": "f@novatech.example", "document": "12.ABC.345/01DE-36"}}},
		{Method: "POST", Path: "/api/v1/withdrawals", Key: s.LiveKey, Body: map[string]any{"amount_cents": 100, "pix_key": "12ABC34501DE53"}},
	} {
		got := s.Do(bad)
		require.Equal(t, http.StatusBadRequest, got.Status, "%s", got.Body)
		require.Contains(t, []string{"customer.document", "pix_key"}, got.JSON(t)["error"].(map[string]any)["param"])
	}
	st := s.PSP.State()
	require.Len(t, st.Payouts, 1)
	require.Zero(t, st.Counts["nonconforming"], "%s", s.PSP.Logs())
	require.Zero(t, st.Counts["invalid_document"], "%s", s.PSP.Logs())

	// The sandbox checks the digits itself, as the PSP does.
	_, err = s.PSP.Client.PutCob(ctx, "cnpjerrado0000000000000000001", apipix.CobRequest{Calendario: apipix.Calendario{Expiracao: 3600},
		Devedor: &apipix.Devedor{CNPJ: "12ABC34501DE36", Nome: "Nova Tech Ltda"}, Valor: apipix.Valor{Original: "10.00"}, Chave: sandboxtest.Chave})
	require.ErrorContains(t, err, "devedor.cnpj")
	_, err = s.PSP.Client.PutPayout(ctx, "cnpjerrado1", apipix.PayoutRequest{Valor: "1.00",
		Pagador: apipix.PayoutKey{Chave: sandboxtest.Chave}, Favorecido: apipix.PayoutKey{Chave: "12ABC34501DE36"}})
	require.ErrorContains(t, err, "favorecido.chave")
	_, err = s.PSP.Client.PutCob(ctx, "cnpjcerto00000000000000000001", apipix.CobRequest{Calendario: apipix.Calendario{Expiracao: 3600},
		Devedor: &apipix.Devedor{CNPJ: receitaCNPJ, Nome: "Nova Tech Ltda"}, Valor: apipix.Valor{Original: "10.00"}, Chave: sandboxtest.Chave})
	require.NoError(t, err)
	require.Equal(t, 1, s.PSP.State().Counts["invalid_document"])
}
