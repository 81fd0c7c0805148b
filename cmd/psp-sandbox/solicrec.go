package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"payments/pix/apipix"
	"payments/pix/calendar"
)

// The rest of Pix Automático at the sandbox: the locations QR codes carry
// (locrec), the requests pushed to the payer's bank (solicrec, JORNADA_1),
// and where the receiver takes the callbacks of recurrences and recurring
// charges (webhookrec, webhookcobr).

// postLocRec creates a recurrence's location.
func (sb *sandbox) postLocRec(w http.ResponseWriter, _ *http.Request, _ []byte) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	loc := &apipix.LocRec{ID: int64(len(sb.st.locrecs) + 1), Location: sb.apiHost + "/qr/v2/rec/" + hex.EncodeToString(b),
		Criacao: sb.now().UTC().Format(time.RFC3339Nano)}
	sb.st.locrecs[loc.ID] = loc
	sb.st.counts["locrec"]++
	w.Header().Set("Location", loc.Location)
	writeJSON(w, http.StatusCreated, loc)
}

func (sb *sandbox) getLocRec(w http.ResponseWriter, r *http.Request, _ []byte) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	loc, ok := sb.st.locrecs[id]
	if !ok {
		problem(w, http.StatusNotFound, "LocRecNaoEncontrada", "Location não encontrada", "Nenhuma location com este id.")
		return
	}
	writeJSON(w, http.StatusOK, loc)
}

// recByLocation finds the recurrence a QR's field 80 points to; the
// caller holds the lock.
func (sb *sandbox) recByLocation(location string) *recState {
	for _, loc := range sb.st.locrecs {
		if loc.Location == location && loc.IDRec != "" {
			return sb.st.recs[loc.IDRec]
		}
	}
	return nil
}

// postSolicRec pushes a created recurrence to the payer's bank, which
// shows it to the payer (bank_rec.go) until they answer or it expires.
func (sb *sandbox) postSolicRec(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req apipix.SolicRecRequest
	if err := json.Unmarshal(body, &req); err != nil {
		problem(w, http.StatusBadRequest, "SolicRecOperacaoInvalida", "Solicitação inválida", err.Error())
		return
	}
	expires, err := time.Parse(time.RFC3339Nano, req.Calendario.DataExpiracaoSolicitacao)
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	rec, ok := sb.st.recs[req.IDRec]
	payer := rec.Vinculo.Devedor
	switch {
	case !ok || rec.Status != apipix.RecCreated:
		problem(w, http.StatusBadRequest, "SolicRecOperacaoInvalida", "Solicitação inválida", "A recorrência não existe ou não aguarda confirmação.")
		return
	case sb.solicitationOf(req.IDRec) != nil:
		problem(w, http.StatusBadRequest, "SolicRecOperacaoInvalida", "Solicitação inválida", "A recorrência já tem uma solicitação em aberto.")
		return
	case err != nil || !expires.After(sb.now()):
		problem(w, http.StatusBadRequest, "SolicRecOperacaoInvalida", "Solicitação inválida", "calendario.dataExpiracaoSolicitacao deve ser futura.")
		return
	case req.Destinatario.CPF != payer.CPF || req.Destinatario.CNPJ != payer.CNPJ:
		problem(w, http.StatusBadRequest, "SolicRecOperacaoInvalida", "Solicitação inválida", "O destinatário não é o devedor da recorrência.")
		return
	}
	s := &apipix.SolicRec{IDSolicRec: "SC" + sandboxISPB + calendar.Today(sb.now()).Time().Format("20060102") + randomAlnum(11),
		IDRec: req.IDRec, Calendario: req.Calendario, Destinatario: req.Destinatario}
	sb.setSolicRec(s, apipix.SolicRecCreated)
	sb.setSolicRec(s, apipix.SolicRecSent)
	sb.st.solicrecs[s.IDSolicRec] = s
	sb.st.counts["solicrec"]++
	writeJSON(w, http.StatusCreated, s)
}

func (sb *sandbox) getSolicRec(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	s, ok := sb.st.solicrecs[r.PathValue("idSolicRec")]
	if !ok {
		problem(w, http.StatusNotFound, "SolicRecNaoEncontrada", "Solicitação não encontrada", "Nenhuma solicitação com este id.")
		return
	}
	writeJSON(w, http.StatusOK, s)
}

// patchSolicRec withdraws a request the payer has not answered.
func (sb *sandbox) patchSolicRec(w http.ResponseWriter, r *http.Request, body []byte) {
	var rev apipix.SolicRecRevision
	if err := json.Unmarshal(body, &rev); err != nil {
		problem(w, http.StatusBadRequest, "SolicRecOperacaoInvalida", "Solicitação inválida", err.Error())
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	s, ok := sb.st.solicrecs[r.PathValue("idSolicRec")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "SolicRecNaoEncontrada", "Solicitação não encontrada", "Nenhuma solicitação com este id.")
		return
	case s.Status == apipix.SolicRecCanceled:
	case s.Status == apipix.SolicRecCreated || s.Status == apipix.SolicRecSent || s.Status == apipix.SolicRecReceived:
		sb.setSolicRec(s, apipix.SolicRecCanceled)
	default:
		problem(w, http.StatusBadRequest, "SolicRecOperacaoInvalida", "Solicitação inválida", "A solicitação já foi respondida.")
		return
	}
	writeJSON(w, http.StatusCreated, s)
}

// expireSolicitations ends the requests the payer left unanswered past
// their expiry, and their recurrences with them (called back); the caller
// holds the lock.
func (sb *sandbox) expireSolicitations() {
	now := sb.now()
	for _, s := range sb.st.solicrecs {
		expires, err := time.Parse(time.RFC3339Nano, s.Calendario.DataExpiracaoSolicitacao)
		if err != nil || now.Before(expires) || (s.Status != apipix.SolicRecSent && s.Status != apipix.SolicRecCreated) {
			continue
		}
		sb.setSolicRec(s, apipix.SolicRecExpired)
		if rec := sb.st.recs[s.IDRec]; rec != nil && rec.Status == apipix.RecCreated {
			sb.endRec(rec, apipix.RecExpired, nil)
			sb.callbacks.notifyRec(rec)
		}
	}
}

func (sb *sandbox) setSolicRec(s *apipix.SolicRec, status string) {
	s.Status = status
	s.Atualizacao = append(s.Atualizacao, apipix.StatusAt{Status: status, Data: sb.stamp()})
}

// solicitationOf is the recurrence's open request, if any; the caller
// holds the lock.
func (sb *sandbox) solicitationOf(idRec string) *apipix.SolicRec {
	for _, s := range sb.st.solicrecs {
		if s.IDRec == idRec && (s.Status == apipix.SolicRecSent || s.Status == apipix.SolicRecCreated || s.Status == apipix.SolicRecReceived) {
			return s
		}
	}
	return nil
}

// webhookFor serves PUT, GET and DELETE of /webhookrec or /webhookcobr,
// whose address *field holds.
func (sb *sandbox) webhookFor(field *string) (put, get, del func(w http.ResponseWriter, r *http.Request, body []byte)) {
	put = func(w http.ResponseWriter, _ *http.Request, body []byte) {
		var req apipix.WebhookRequest
		if err := json.Unmarshal(body, &req); err != nil || req.WebhookURL == "" {
			problem(w, http.StatusBadRequest, "WebhookOperacaoInvalida", "Webhook inválido", "webhookUrl é obrigatório.")
			return
		}
		sb.st.mu.Lock()
		*field = req.WebhookURL
		sb.st.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}
	get = func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		sb.st.mu.Lock()
		defer sb.st.mu.Unlock()
		if *field == "" {
			problem(w, http.StatusNotFound, "WebhookNaoEncontrado", "Webhook não encontrado", "Nenhum webhook configurado.")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"webhookUrl": *field})
	}
	del = func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		sb.st.mu.Lock()
		*field = ""
		sb.st.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}
	return put, get, del
}
