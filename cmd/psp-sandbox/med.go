package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"payments/pix/apipix"
)

// MED 2.0 for money sent, as this PSP and the receiving institution play
// it: the receiver asks for a payout it was defrauded or coerced into back
// (PUT /v2/gn/med/{idSolicitacao}); the receiving institution returns it in
// whole or in part, or refuses (POST /sandbox/med/{id}/resultado decides
// now; with the clock, seven days after the request it returns it whole),
// and the PSP calls back at the webhook + "/med".

// medAnalise is how long the receiving institution takes when no one
// decides for it.
const medAnalise = 7 * 24 * time.Hour

type medRequest struct {
	apipix.MEDSolicitacao
	criacao time.Time
	body    []byte
}

// putMED handles PUT /v2/gn/med/{id}.
func (sb *sandbox) putMED(w http.ResponseWriter, r *http.Request, body []byte) {
	id := r.PathValue("id")
	var req apipix.MEDRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	switch err := dec.Decode(&req); {
	case !idEnvioPattern.MatchString(id):
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "idSolicitacao deve ter de 1 a 35 letras e dígitos.")
		return
	case err != nil:
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", err.Error())
		return
	case !slices.Contains([]string{apipix.MotivoFraude, apipix.MotivoCoacao, apipix.MotivoFalhaOperacional}, req.Motivo):
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "motivo deve ser fraude, coacao ou falha_operacional.")
		return
	case utf8.RuneCountInString(req.Descricao) == 0 || utf8.RuneCountInString(req.Descricao) > 2000:
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "descricao de 1 a 2000 caracteres.")
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	if m, ok := sb.st.med[id]; ok {
		if !bytes.Equal(m.body, body) {
			problem(w, http.StatusConflict, "RequisicaoInvalida", "Requisição inválida", "Este idSolicitacao já foi usado com outros dados.")
			return
		}
		sb.st.counts["med_repeat"]++
		writeJSON(w, http.StatusOK, m.MEDSolicitacao)
		return
	}
	var sent *payout
	for _, p := range sb.st.payouts {
		if p.E2EID == req.EndToEndID && p.Status == apipix.PayoutDone {
			sent = p
		}
	}
	if sent == nil {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Pix não encontrado", "Nenhum Pix enviado e liquidado com este endToEndId.")
		return
	}
	now := sb.now().UTC()
	m := &medRequest{criacao: now, body: body, MEDSolicitacao: apipix.MEDSolicitacao{IDSolicitacao: id, EndToEndID: req.EndToEndID,
		Motivo: req.Motivo, Descricao: req.Descricao, Valor: sent.Valor, Situacao: apipix.MEDEmAnalise, Criacao: now.Format(time.RFC3339)}}
	sb.st.med[id] = m
	sb.st.counts["med"]++
	writeJSON(w, http.StatusCreated, m.MEDSolicitacao)
}

// getMED handles GET /v2/gn/med/{id}.
func (sb *sandbox) getMED(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	m, ok := sb.st.med[r.PathValue("id")]
	if !ok {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Solicitação não encontrada", "Nenhuma solicitação com este id.")
		return
	}
	writeJSON(w, http.StatusOK, m.MEDSolicitacao)
}

// decideMED handles POST /sandbox/med/{id}/resultado {"valorDevolvido"}:
// the receiving institution returns that much ("0.00": it refuses).
func (sb *sandbox) decideMED(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ValorDevolvido string `json:"valorDevolvido"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", err.Error())
		return
	}
	returned, err := apipix.ParseValor(in.ValorDevolvido)
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	m, ok := sb.st.med[r.PathValue("id")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "NaoEncontrado", "Solicitação não encontrada", "Nenhuma solicitação com este id.")
		return
	case m.Situacao != apipix.MEDEmAnalise:
		problem(w, http.StatusConflict, "SolicitacaoDecidida", "Solicitação já decidida", "Esta solicitação já foi decidida.")
		return
	}
	sent, _ := apipix.ParseValor(m.Valor)
	if err != nil || returned < 0 || returned > sent {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "valorDevolvido de 0.00 até o valor enviado.")
		return
	}
	sb.decideMEDLocked(m, returned, sent)
	writeJSON(w, http.StatusOK, m.MEDSolicitacao)
}

func (sb *sandbox) decideMEDLocked(m *medRequest, returned, sent int64) {
	m.Situacao = apipix.MEDRecusada
	switch {
	case returned == sent:
		m.Situacao = apipix.MEDDevolvida
	case returned > 0:
		m.Situacao = apipix.MEDParcialmenteDevolvida
	}
	m.ValorDevolvido, m.Conclusao = apipix.FormatValor(returned), sb.now().UTC().Format(time.RFC3339)
	sb.st.counts["med_decidida"]++
	body, _ := json.Marshal(apipix.MEDCallback{MED: []apipix.MEDNotification{{IDSolicitacao: m.IDSolicitacao, Situacao: m.Situacao}}})
	sb.callbacks.notifyLocked("/med", body)
}

// runMEDDeadlines returns in whole what nobody decided within medAnalise.
func (sb *sandbox) runMEDDeadlines() {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	now := sb.now()
	for _, m := range sb.st.med {
		if m.Situacao == apipix.MEDEmAnalise && now.After(m.criacao.Add(medAnalise)) {
			sent, _ := apipix.ParseValor(m.Valor)
			sb.decideMEDLocked(m, sent, sent)
		}
	}
}
