package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"payments/pix/apipix"
	"payments/pix/calendar"
)

// Pix Automático at the sandbox: recurrences (rec) its payer's bank
// approves, rejects or cancels (the payer port's controls), and recurring
// charges (cobr) it debits on their dates, when the payer's balance
// allows (a control makes it fall short), with retries as API Pix allows.

type recState struct{ apipix.Rec }

type cobrState struct{ apipix.CobR }

// shortBalanceCode is the rejection a debit gets when the payer's balance
// falls short: ISO 20022's AM04, insufficient funds.
const shortBalanceCode = "AM04"

func (sb *sandbox) stamp() string { return sb.now().UTC().Format(time.RFC3339) }

func (sb *sandbox) postRec(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req apipix.RecRequest
	if err := json.Unmarshal(body, &req); err != nil {
		problem(w, http.StatusBadRequest, "RecOperacaoInvalida", "Recorrência inválida", err.Error())
		return
	}
	now := sb.now()
	if start, err := calendar.ParseDate(req.Calendario.DataInicial); err != nil || start.Before(calendar.Today(now)) {
		problem(w, http.StatusBadRequest, "RecOperacaoInvalida", "Recorrência inválida", "calendario.dataInicial não pode ser anterior a hoje.")
		return
	}
	kind := "N"
	if req.PoliticaRetentativa == apipix.RetryThreeIn7 {
		kind = "R"
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	var loc *apipix.LocRec
	if req.Loc != nil {
		if loc = sb.st.locrecs[*req.Loc]; loc == nil || loc.IDRec != "" {
			problem(w, http.StatusBadRequest, "RecOperacaoInvalida", "Recorrência inválida", "loc não existe ou já tem uma recorrência.")
			return
		}
	}
	if req.Ativacao != nil && req.Ativacao.DadosJornada != nil && sb.st.cobs[req.Ativacao.DadosJornada.TxID] == nil {
		problem(w, http.StatusBadRequest, "RecOperacaoInvalida", "Recorrência inválida", "ativacao.dadosJornada.txid não é uma cobrança deste recebedor.")
		return
	}
	rec := &recState{apipix.Rec{IDRec: "R" + kind + sandboxISPB + now.In(calendar.Brasilia).Format("20060102") + randomAlnum(11),
		Vinculo: req.Vinculo, Calendario: req.Calendario, Valor: req.Valor, PoliticaRetentativa: req.PoliticaRetentativa,
		Status: apipix.RecCreated, Atualizacao: []apipix.StatusAt{{Status: apipix.RecCreated, Data: sb.stamp()}}, Ativacao: req.Ativacao}}
	if rec.Ativacao == nil {
		rec.Ativacao = &apipix.RecAtivacao{}
	}
	rec.Ativacao.TipoJornada = "AGUARDANDO_DEFINICAO"
	if loc != nil {
		loc.IDRec = rec.IDRec
		rec.Loc = &apipix.LocRec{ID: loc.ID, Location: loc.Location, Criacao: loc.Criacao}
	}
	sb.st.recs[rec.IDRec] = rec
	sb.st.counts["rec"]++
	writeJSON(w, http.StatusCreated, rec.Rec)
}

func (sb *sandbox) getRec(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	rec, ok := sb.st.recs[r.PathValue("idRec")]
	if !ok {
		problem(w, http.StatusNotFound, "RecNaoEncontrada", "Recorrência não encontrada", "Nenhuma recorrência com este idRec.")
		return
	}
	writeJSON(w, http.StatusOK, rec.Rec)
}

func (sb *sandbox) patchRec(w http.ResponseWriter, r *http.Request, body []byte) {
	var rev apipix.RecRevision
	if err := json.Unmarshal(body, &rev); err != nil {
		problem(w, http.StatusBadRequest, "RecOperacaoInvalida", "Recorrência inválida", err.Error())
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	rec, ok := sb.st.recs[r.PathValue("idRec")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "RecNaoEncontrada", "Recorrência não encontrada", "Nenhuma recorrência com este idRec.")
		return
	case rev.Status == apipix.RecCanceled && rec.Status == apipix.RecCanceled:
	case rev.Status == apipix.RecCanceled && (rec.Status == apipix.RecCreated || rec.Status == apipix.RecApproved):
		sb.endRec(rec, apipix.RecCanceled, &apipix.RecEncerramento{Cancelamento: &apipix.RecMotivo{
			Solicitante: "USUARIO_RECEBEDOR", Codigo: "SLCR", Descricao: "Cancelada pelo usuário recebedor."}})
		sb.st.counts["rec.cancel"]++
		sb.callbacks.notifyRec(rec)
	case rev.Status != "":
		problem(w, http.StatusBadRequest, "RecOperacaoInvalida", "Recorrência inválida", "A recorrência não pode mais ser alterada.")
		return
	}
	writeJSON(w, http.StatusOK, rec.Rec)
}

// endRec moves a recurrence to status, why, with the history; the caller
// holds the lock.
func (sb *sandbox) endRec(rec *recState, status string, why *apipix.RecEncerramento) {
	rec.Status, rec.Encerramento = status, why
	rec.Atualizacao = append(rec.Atualizacao, apipix.StatusAt{Status: status, Data: sb.stamp()})
}

// answerRec handles POST /sandbox/rec/{idRec}/{approve|reject|cancel}:
// the payer, in their bank, as the bank's page does (bank_rec.go).
func (sb *sandbox) answerRec(w http.ResponseWriter, r *http.Request) {
	rec, err := sb.answer(r.PathValue("idRec"), r.PathValue("action"))
	if err != nil {
		writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, rec)
}

// answer applies the payer's answer to the recurrence idRec: approve (on
// JORNADA_3 paying its first charge too, or nothing is approved), reject
// or, once approved, cancel (its open charges with it). The receiver is
// called back.
func (sb *sandbox) answer(idRec, action string) (apipix.Rec, error) {
	sb.st.mu.Lock()
	rec, ok := sb.st.recs[idRec]
	if !ok {
		sb.st.mu.Unlock()
		return apipix.Rec{}, payerMessage("Recorrência não encontrada neste PSP.")
	}
	var firstCharge string
	if action == "approve" && rec.Status == apipix.RecCreated && rec.Ativacao.DadosJornada != nil {
		firstCharge = rec.Ativacao.DadosJornada.TxID
	}
	sb.st.mu.Unlock()
	if firstCharge != "" {
		// The QR composto: the payment and the authorization go together.
		if _, err := sb.payTxID(firstCharge); err != nil {
			return apipix.Rec{}, err
		}
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	solicit := sb.solicitationOf(rec.IDRec)
	switch {
	case action == "approve" && rec.Status == apipix.RecCreated:
		rec.Status = apipix.RecApproved
		rec.Atualizacao = append(rec.Atualizacao, apipix.StatusAt{Status: apipix.RecApproved, Data: sb.stamp()})
		switch {
		case rec.Ativacao.DadosJornada != nil:
			rec.Ativacao.TipoJornada = "JORNADA_3"
		case solicit != nil:
			rec.Ativacao.TipoJornada = "JORNADA_1"
			sb.setSolicRec(solicit, apipix.SolicRecAccepted)
		default:
			rec.Ativacao.TipoJornada = "JORNADA_2"
		}
	case action == "reject" && rec.Status == apipix.RecCreated:
		sb.endRec(rec, apipix.RecRejected, &apipix.RecEncerramento{Rejeicao: &apipix.RecMotivo{Codigo: "AP13", Descricao: "Rejeitada pelo usuário pagador."}})
		if solicit != nil {
			sb.setSolicRec(solicit, apipix.SolicRecRejected)
		}
	case action == "cancel" && rec.Status == apipix.RecApproved:
		sb.endRec(rec, apipix.RecCanceled, &apipix.RecEncerramento{Cancelamento: &apipix.RecMotivo{
			Solicitante: "USUARIO_PAGADOR", Codigo: "SLDB", Descricao: "Cancelada pelo usuário pagador."}})
		for _, c := range sb.st.cobrs {
			if c.IDRec == rec.IDRec && (c.Status == apipix.CobRCreated || c.Status == apipix.CobRActive) {
				sb.setCobR(c, apipix.CobRCanceled)
				sb.callbacks.notifyCobR(c)
			}
		}
	default:
		return apipix.Rec{}, payerMessage("Esta autorização está " + recStatusWords[rec.Status] + ": nada a fazer.")
	}
	sb.callbacks.notifyRec(rec)
	return rec.Rec, nil
}

// setBalance handles POST /sandbox/balance {"short": true|false}: whether
// the payer's balance covers the debits from now on.
func (sb *sandbox) setBalance(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Short bool `json:"short"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	sb.st.mu.Lock()
	sb.st.balanceShort = in.Short
	sb.st.mu.Unlock()
	writeJSON(w, http.StatusOK, in)
}

func (sb *sandbox) setCobR(c *cobrState, status string) {
	c.Status = status
	c.Atualizacao = append(c.Atualizacao, apipix.StatusAt{Status: status, Data: sb.stamp()})
}

// putCobR creates a cycle's charge of an approved recurrence, due 2 to 10
// days ahead (the rules' window), scheduled for its due date.
func (sb *sandbox) putCobR(w http.ResponseWriter, r *http.Request, body []byte) {
	var req apipix.CobRRequest
	if err := json.Unmarshal(body, &req); err != nil {
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	txid := r.PathValue("txid")
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	rec, ok := sb.st.recs[req.IDRec]
	today := calendar.Today(sb.now())
	due, err := calendar.ParseDate(req.Calendario.DataDeVencimento)
	switch {
	case sb.st.cobrs[txid] != nil:
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", "O txid informado já foi utilizado.")
		return
	case req.Recebedor == nil || req.Recebedor.Conta != sb.account:
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", "recebedor.conta não é a conta deste usuário recebedor.")
		return
	case !ok || rec.Status != apipix.RecApproved:
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", "A recorrência não existe ou não está aprovada.")
		return
	case err != nil || today.DaysUntil(due) < 2 || today.DaysUntil(due) > 10:
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida",
			"A cobrança deve ser enviada de 2 a 10 dias antes do vencimento.")
		return
	}
	c := &cobrState{apipix.CobR{IDRec: req.IDRec, TxID: txid, Calendario: apipix.CobRCalendario{DataDeVencimento: req.Calendario.DataDeVencimento,
		Criacao: today.String()}, Valor: req.Valor, AjusteDiaUtil: req.AjusteDiaUtil, PoliticaRetentativa: rec.PoliticaRetentativa}}
	sb.setCobR(c, apipix.CobRCreated)
	sb.setCobR(c, apipix.CobRActive) // accepted by the payer's PSP, scheduled
	c.Tentativas = []apipix.CobRTentativa{{DataLiquidacao: due.String(), Tipo: "AGND", Status: "AGENDADA", EndToEndID: newE2E("E", sb.now()),
		Atualizacao: []apipix.StatusAt{{Status: "AGENDADA", Data: sb.stamp()}}}}
	sb.st.cobrs[txid] = c
	sb.st.counts["cobr"]++
	sb.callbacks.notifyCobR(c)
	writeJSON(w, http.StatusCreated, c.CobR)
}

func (sb *sandbox) getCobR(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobrs[r.PathValue("txid")]
	if !ok {
		problem(w, http.StatusNotFound, "CobRNaoEncontrada", "Cobrança não encontrada", "Nenhuma cobrança recorrente com este txid.")
		return
	}
	writeJSON(w, http.StatusOK, c.CobR)
}

func (sb *sandbox) patchCobR(w http.ResponseWriter, r *http.Request, body []byte) {
	var rev apipix.CobRevision
	if err := json.Unmarshal(body, &rev); err != nil {
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobrs[r.PathValue("txid")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "CobRNaoEncontrada", "Cobrança não encontrada", "Nenhuma cobrança recorrente com este txid.")
		return
	case rev.Status == apipix.CobRCanceled && c.Status == apipix.CobRCanceled:
	case rev.Status == apipix.CobRCanceled && (c.Status == apipix.CobRCreated || c.Status == apipix.CobRActive):
		sb.setCobR(c, apipix.CobRCanceled)
	case rev.Status != "":
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", "A cobrança não pode mais ser alterada.")
		return
	}
	writeJSON(w, http.StatusOK, c.CobR)
}

// retryCobR schedules another attempt on {data}: the recurrence allows
// retries, the last attempt was refused, the date is within seven days
// of the due date, and no more than three retries.
func (sb *sandbox) retryCobR(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobrs[r.PathValue("txid")]
	if !ok {
		problem(w, http.StatusNotFound, "CobRNaoEncontrada", "Cobrança não encontrada", "Nenhuma cobrança recorrente com este txid.")
		return
	}
	due, _ := calendar.ParseDate(c.Calendario.DataDeVencimento)
	date, err := calendar.ParseDate(r.PathValue("data"))
	last := c.Tentativas[len(c.Tentativas)-1]
	switch {
	case c.PoliticaRetentativa != apipix.RetryThreeIn7:
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", "A recorrência não permite novas tentativas.")
	case c.Status != apipix.CobRActive || last.Status != "REJEITADA":
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", "Só uma cobrança ativa com a última tentativa rejeitada pode ser tentada de novo.")
	case err != nil || date.Before(calendar.Today(sb.now())) || date.After(due.AddDays(7)) || len(c.Tentativas) > 3:
		problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida", "Até três novas tentativas, nos sete dias após o vencimento.")
	default:
		c.Tentativas = append(c.Tentativas, apipix.CobRTentativa{DataLiquidacao: date.String(), Tipo: "RIFL", Status: "AGENDADA",
			EndToEndID: newE2E("E", sb.now()), Atualizacao: []apipix.StatusAt{{Status: "AGENDADA", Data: sb.stamp()}}})
		sb.st.counts["cobr.retry"]++
		writeJSON(w, http.StatusCreated, c.CobR)
	}
}

// debitCobR handles POST /sandbox/cobr/{txid}/debit: the payer's bank runs
// the charge's scheduled attempt now, whatever its date.
func (sb *sandbox) debitCobR(w http.ResponseWriter, r *http.Request) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobrs[r.PathValue("txid")]
	if !ok || !c.scheduled() {
		writeJSON(w, http.StatusConflict, map[string]string{"error": "Nenhuma tentativa agendada para esta cobrança."})
		return
	}
	sb.debit(c)
	writeJSON(w, http.StatusOK, c.CobR)
}

// scheduled reports whether the charge has an attempt waiting for its date.
func (c *cobrState) scheduled() bool {
	return c.Status == apipix.CobRActive && c.Tentativas[len(c.Tentativas)-1].Status == "AGENDADA"
}

// debit runs the charge's scheduled attempt, as the payer's bank does on
// its date: paid (a Pix to the receiver) unless the payer's balance falls
// short (the attempt refused; without retries left the charge is
// rejected). The receiver is called back; the caller holds the lock.
func (sb *sandbox) debit(c *cobrState) {
	attempt := &c.Tentativas[len(c.Tentativas)-1]
	if sb.st.balanceShort {
		attempt.Status, attempt.Rejeicao = "REJEITADA", &apipix.RecMotivo{Codigo: shortBalanceCode, Descricao: "Saldo insuficiente."}
		attempt.Atualizacao = append(attempt.Atualizacao, apipix.StatusAt{Status: "REJEITADA", Data: sb.stamp()})
		if c.PoliticaRetentativa != apipix.RetryThreeIn7 || len(c.Tentativas) > 3 {
			sb.setCobR(c, apipix.CobRRejected)
		}
		sb.callbacks.notifyCobR(c)
		return
	}
	attempt.Status = "PAGA"
	attempt.Atualizacao = append(attempt.Atualizacao, apipix.StatusAt{Status: "PAGA", Data: sb.stamp()})
	sb.setCobR(c, apipix.CobRCompleted)
	p := sb.receiveAs(attempt.EndToEndID, c.TxID, c.Valor.Original, sb.chave)
	c.Pix = append(c.Pix, p.Pix)
	body, _ := json.Marshal(apipix.Callback{Pix: []apipix.CallbackItem{{Pix: p.withDevolucoes()}}})
	webhooks := make([]string, 0, len(sb.st.webhooks))
	for _, url := range sb.st.webhooks {
		webhooks = append(webhooks, url)
	}
	sb.callbacks.deliverLocked(webhooks, "/pix", body)
	sb.callbacks.notifyCobR(c)
}

// runDueDebits runs every attempt scheduled for the sandbox's date or
// before, and ends the requests past their expiry: moving the clock makes
// cycles come due.
func (sb *sandbox) runDueDebits() {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	sb.expireSolicitations()
	today := calendar.Today(sb.now()).String()
	txids := make([]string, 0, len(sb.st.cobrs))
	for txid, c := range sb.st.cobrs {
		if c.scheduled() && c.Tentativas[len(c.Tentativas)-1].DataLiquidacao <= today {
			txids = append(txids, txid)
		}
	}
	slices.Sort(txids)
	for _, txid := range txids {
		sb.debit(sb.st.cobrs[txid])
	}
}
