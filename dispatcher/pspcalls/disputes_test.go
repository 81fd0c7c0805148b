package pspcalls_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix/apipix"
	"payments/pix/calendar"
	"payments/store/storetest"
	"payments/web/webtest"
)

// liveE2E is the end-to-end id of the Pix that paid the live payment id.
func liveE2E(t *testing.T, s *webtest.Server, txid string) string {
	t.Helper()
	for _, p := range s.PSP.State().Pix {
		if p.TxID == txid {
			return p.EndToEndID
		}
	}
	t.Fatalf("no Pix paid %s", txid)
	return ""
}

// waitForDispute polls the live disputes until one has infraction_id id
// and holds for cond.
func waitForDispute(t *testing.T, s *webtest.Server, id string, cond func(map[string]any) bool) map[string]any {
	t.Helper()
	var got map[string]any
	eventually(t, 15*time.Second, func() bool {
		for _, d := range s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes", Key: s.LiveKey}).JSON(t)["data"].([]any) {
			if d := d.(map[string]any); d["infraction_id"] == id {
				got = d
				return cond(d)
			}
		}
		return false
	}, func() string { return dumpCalls(t, s) + s.PSP.Logs() })
	return got
}

// MED 2.0 for money received, live through the PSP sandbox: the payer's
// bank reports a Pix; the PSP's callback opens the dispute (what it
// claims, its deadline, blocked); the merchant's defense, files and all,
// reaches the PSP (under analysis); the institutions keep the money with
// the merchant. Another, never answered, is decided against it when the
// clock passes the analysis's deadline: the money goes back.
func TestLiveDisputeFromReportToDecision(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	recv := liveWebhook(t, s, "dispute.opened", "dispute.updated", "dispute.won", "dispute.lost")
	t.Cleanup(func() { s.PSP.SetDate("") })
	kept := livePaid(t, s, 20_000)
	inf := s.PSP.ReportInfracao(liveE2E(t, s, kept["correlation_id"].(string)), apipix.MotivoCoacao, "150.00")
	d := waitForDispute(t, s, inf.IDInfracao, func(d map[string]any) bool { return true })
	require.Equal(t, []any{"coercion", 15_000.0, 15_000.0, "open", "blocked", kept["id"]},
		[]any{d["reason"], d["amount_reported_cents"], d["amount_held_cents"], d["status"], d["stage"], d["payment_id"]})
	prazo, err := time.Parse(time.RFC3339, inf.PrazoDefesa)
	require.NoError(t, err)
	require.Equal(t, prazo.UTC().Format("2006-01-02T15:04:05.000Z"), d["respond_by"], "the PSP's deadline")
	require.EqualValues(t, 15_000, balancePending(t, s))

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("text", "O cliente comprou e recebeu; segue a nota fiscal.")
	part, _ := mw.CreateFormFile("evidence", "nota-fiscal.pdf")
	_, _ = part.Write([]byte("%PDF-1.7 nota fiscal 123"))
	_ = mw.Close()
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/" + d["id"].(string) + "/defense", Key: s.LiveKey, Body: form.Bytes(),
		Headers: map[string]string{"Content-Type": mw.FormDataContentType()}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "under_review", r.JSON(t)["stage"])
	eventually(t, 15*time.Second, func() bool {
		for _, i := range s.PSP.State().Infracoes {
			if i.IDInfracao == inf.IDInfracao && i.Defesa != nil {
				require.Equal(t, apipix.InfracaoEmAnalise, i.Situacao)
				require.Equal(t, "O cliente comprou e recebeu; segue a nota fiscal.", i.Defesa.Justificativa)
				require.Equal(t, []apipix.AnexoMantido{{Nome: "nota-fiscal.pdf", Tipo: "application/pdf", Tamanho: 24}}, i.Defesa.Anexos)
				return true
			}
		}
		return false
	}, func() string { return dumpCalls(t, s) })

	s.PSP.DecideInfracao(inf.IDInfracao, apipix.ResultadoManter)
	won := waitForDispute(t, s, inf.IDInfracao, func(d map[string]any) bool { return d["status"] == "won" })
	require.Equal(t, "decided", won["stage"])
	require.EqualValues(t, 0, balancePending(t, s))

	// Never answered: decided when the analysis's 7 days have passed.
	lost := livePaid(t, s, 8_000)
	unanswered := s.PSP.ReportInfracao(liveE2E(t, s, lost["correlation_id"].(string)), apipix.MotivoFraude, "")
	waitForDispute(t, s, unanswered.IDInfracao, func(d map[string]any) bool { return d["amount_held_cents"] == 8_000.0 })
	s.PSP.SetDate(calendar.Today(time.Now()).AddDays(8).String())
	gone := waitForDispute(t, s, unanswered.IDInfracao, func(d map[string]any) bool { return d["status"] == "lost" })
	require.Equal(t, "decided", gone["stage"])
	p := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + lost["id"].(string), Key: s.LiveKey}).JSON(t)
	require.Equal(t, "refunded", p["status"], "the money went back to the payer")

	require.ElementsMatch(t, []string{"dispute.opened", "dispute.updated", "dispute.won", "dispute.opened", "dispute.lost"},
		eventTypes(t, recv.WaitFor(5, 10*time.Second)))
	st := s.PSP.State()
	require.Zero(t, st.Counts["nonconforming"], "%s", s.PSP.Logs())
	s.LedgerMatchesBalance(liveScope(s))
	broken, err := storetest.MoneyViolations(t.Context(), s.DB, liveScope(s))
	require.NoError(t, err)
	require.Empty(t, broken, "the money model holds")
}

func balancePending(t *testing.T, s *webtest.Server) float64 {
	t.Helper()
	return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.LiveKey}).JSON(t)["pending_cents"].(float64)
}

// MED 2.0 for money sent, live through the PSP sandbox: a completed
// payout contested goes to the PSP as a request for a return, with its
// grounds and account; the receiving institution returns part of it
// (credited, withdrawal.contest_returned). Another, never answered, comes
// back whole when the clock passes its analysis.
func TestLiveContestedWithdrawalIsFollowedToItsEnd(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	recv := liveWebhook(t, s, "withdrawal.contested", "withdrawal.contest_returned", "withdrawal.contest_refused")
	t.Cleanup(func() { s.PSP.SetDate("") })
	livePaid(t, s, 50_000)
	contest := func(cents int64, description string) map[string]any {
		t.Helper()
		wd := withdraw(t, s, cents, "12.ABC.345/01DE-35")
		waitForWithdrawal(t, s, wd["id"].(string), "completed")
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals/" + wd["id"].(string) + "/contest", Key: s.LiveKey,
			Body: map[string]any{"reason": "fraud", "description": description}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	partly := contest(10_000, "Boleto falso de fornecedor pago por Pix.")
	id := partly["id"].(string)
	var requestID string
	eventually(t, 15*time.Second, func() bool {
		for _, m := range s.PSP.State().MED {
			if m.Descricao == "Boleto falso de fornecedor pago por Pix." {
				require.Equal(t, []string{apipix.MotivoFraude, "100.00", apipix.MEDEmAnalise}, []string{m.Motivo, m.Valor, m.Situacao})
				requestID = m.IDSolicitacao
				return true
			}
		}
		return false
	}, func() string { return dumpCalls(t, s) })
	before := balance(t, s)
	s.PSP.DecideMED(requestID, "61.50")
	var got map[string]any
	eventually(t, 15*time.Second, func() bool {
		got = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/" + id, Key: s.LiveKey}).JSON(t)["contest"].(map[string]any)
		return got["status"] != "pending"
	}, func() string { return dumpCalls(t, s) })
	require.Equal(t, []any{"partially_returned", 6_150.0, requestID}, []any{got["status"], got["amount_returned_cents"], got["reference"]})
	require.Equal(t, before+6_150, balance(t, s), "what came back is available")

	whole := contest(3_000, "Coagido a transferir.")
	eventually(t, 15*time.Second, func() bool { // the request is at the PSP before its days pass
		return slices.ContainsFunc(s.PSP.State().MED, func(m apipix.MEDSolicitacao) bool { return m.Descricao == "Coagido a transferir." })
	}, func() string { return dumpCalls(t, s) })
	s.PSP.SetDate(calendar.Today(time.Now()).AddDays(8).String())
	eventually(t, 15*time.Second, func() bool {
		c := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/" + whole["id"].(string), Key: s.LiveKey}).JSON(t)["contest"].(map[string]any)
		return c["status"] == "returned" && c["amount_returned_cents"] == 3_000.0
	}, func() string { return dumpCalls(t, s) })
	require.ElementsMatch(t, []string{"withdrawal.contested", "withdrawal.contest_returned", "withdrawal.contested", "withdrawal.contest_returned"},
		eventTypes(t, recv.WaitFor(4, 10*time.Second)))
	require.Zero(t, s.PSP.State().Counts["nonconforming"], "%s", s.PSP.Logs())
	s.LedgerMatchesBalance(liveScope(s))
	broken, err := storetest.MoneyViolations(t.Context(), s.DB, liveScope(s))
	require.NoError(t, err)
	require.Empty(t, broken, "the money model holds, what the contests brought back included")
}
