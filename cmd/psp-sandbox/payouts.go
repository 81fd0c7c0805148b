package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"payments/pix"
	"payments/pix/apipix"
)

// The payout port: API Pix has no payouts, so the sandbox models them on a
// published PSP API, Efí's Pix send (PUT /v3/gn/pix/{idEnvio}, idempotent by
// idEnvio; GET /v2/gn/pix/enviados/id-envio/{idEnvio}), and notifies their
// end like a received Pix, the item carrying idEnvio and status.

func (sb *sandbox) putPayout(w http.ResponseWriter, r *http.Request, body []byte) {
	id := r.PathValue("idEnvio")
	var req apipix.PayoutRequest
	if !idEnvioPattern.MatchString(id) {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "idEnvio deve ter de 1 a 35 letras e dígitos.")
		return
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", err.Error())
		return
	}
	amount, err := apipix.ParseValor(req.Valor)
	switch {
	case err != nil || amount <= 0:
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "valor deve ser maior que 0.00, como 12.34.")
		return
	case req.Pagador.Chave != sb.chave:
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "pagador.chave deve ser a chave deste usuário.")
		return
	case req.Favorecido.Chave == "" || len(req.Favorecido.Chave) > 77:
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "favorecido.chave é obrigatória (até 77 caracteres).")
		return
	case !dictForm(req.Favorecido.Chave):
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida",
			"favorecido.chave deve ser uma chave Pix na forma do DICT: CPF ou CNPJ (alfanumérico inclusive) sem pontuação e com dígitos verificadores válidos, e-mail, +55 celular ou chave aleatória.")
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	if p, ok := sb.st.payouts[id]; ok {
		if !bytes.Equal(p.body, body) {
			problem(w, http.StatusConflict, "RequisicaoInvalida", "Requisição inválida", "Este idEnvio já foi usado com outros dados.")
			return
		}
		sb.st.counts["payout_repeat"]++
		writeJSON(w, http.StatusCreated, p.Payout)
		return
	}
	now := time.Now().UTC()
	p := &payout{body: body, chave: req.Favorecido.Chave, Payout: apipix.Payout{IDEnvio: id, E2EID: newE2E("E", now),
		Valor: req.Valor, Horario: apipix.Horario{Solicitacao: now.Format(time.RFC3339Nano)}, Status: apipix.PayoutProcessing}}
	sb.st.payouts[id] = p
	sb.st.counts["payout"]++
	delay, refuse := sb.st.faults.payoutDelay(), sb.st.faults.refusesPayoutTo(req.Favorecido.Chave)
	time.AfterFunc(delay, func() { sb.settlePayout(id, refuse) })
	writeJSON(w, http.StatusCreated, p.Payout)
}

// dictForm is a key written as the DICT holds it (what a PSP's send
// expects): normalizing it changes nothing.
func dictForm(chave string) bool {
	key, _, ok := pix.NormalizeKey(chave)
	return ok && key == chave
}

func (sb *sandbox) settlePayout(id string, refuse bool) {
	sb.st.mu.Lock()
	p := sb.st.payouts[id]
	p.Status, p.Horario.Liquidacao = apipix.PayoutDone, time.Now().UTC().Format(time.RFC3339Nano)
	if refuse {
		p.Status, p.Motivo, p.Horario.Liquidacao = apipix.PayoutNotDone, "Chave Pix não encontrada no DICT.", ""
	}
	item := apipix.CallbackItem{Pix: apipix.Pix{EndToEndID: p.E2EID, Valor: p.Valor, Horario: p.Horario.Solicitacao},
		IDEnvio: p.IDEnvio, Status: p.Status}
	sb.st.mu.Unlock()
	sb.callbacks.notify(item)
}

func (sb *sandbox) getPayout(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	p, ok := sb.st.payouts[r.PathValue("idEnvio")]
	if !ok {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Envio não encontrado", "Nenhum Pix enviado com este idEnvio.")
		return
	}
	writeJSON(w, http.StatusOK, p.Payout)
}
