package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"payments/pix/apipix"
)

// MED 2.0, as the payer's bank, the BCB and this PSP play it: a payer's
// bank reports an infração on a Pix received here (POST /sandbox/infracoes,
// the payer's side); the PSP blocks what it claims and calls back at the
// webhook + "/infracoes"; the receiver reads it (GET /v2/gn/infracoes/{id})
// and may answer until prazoDefesa (POST .../defesa: its account and files,
// then EM_ANALISE); the institutions decide by prazoAnalise: DEVOLVER (the
// money goes back) or MANTER. The sandbox's clock (POST /sandbox/clock)
// moves the deadlines on: an infração past prazoDefesa goes EM_ANALISE, one
// past prazoAnalise is decided (MANTER when defended, DEVOLVER when not),
// unless POST /sandbox/infracoes/{id}/decisao decided it first. Modelled on
// Efí's /v2/gn/infracoes.

// MED 2.0's days from the report: the receiver's answer (this PSP's
// rule), the analysis and the return.
const (
	defesaWithin    = 3 * 24 * time.Hour
	analiseWithin   = 7 * 24 * time.Hour
	devolucaoWithin = 11 * 24 * time.Hour
)

// Bounds of a defesa the PSP takes.
const (
	maxJustificativa = 5000
	maxAnexos        = 5
	maxAnexo         = 2 << 20
)

var anexoTipos = []string{"application/pdf", "image/png", "image/jpeg"}

type infracao struct {
	apipix.Infracao
	criacao    time.Time
	defesaBody []byte // the defesa's request, to tell a repeat from another
}

func (inf *infracao) prazo(d time.Duration) time.Time { return inf.criacao.Add(d) }

// reportInfracao handles POST /sandbox/infracoes {"endToEndId", "motivo",
// "valor"?}: the payer's bank reports a Pix received here (valor: what it
// claims, the whole Pix by default).
func (sb *sandbox) reportInfracao(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EndToEndID string `json:"endToEndId"`
		Motivo     string `json:"motivo"`
		Valor      string `json:"valor"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", err.Error())
		return
	}
	if !slices.Contains([]string{apipix.MotivoFraude, apipix.MotivoCoacao, apipix.MotivoFalhaOperacional}, in.Motivo) {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "motivo deve ser fraude, coacao ou falha_operacional.")
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	p, ok := sb.st.pix[in.EndToEndID]
	if !ok {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Pix não encontrado", "Nenhum Pix recebido com este endToEndId.")
		return
	}
	received, _ := apipix.ParseValor(p.Valor)
	claimed := received
	if in.Valor != "" {
		v, err := apipix.ParseValor(in.Valor)
		if err != nil || v <= 0 || v > received {
			problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "valor deve estar entre 0.01 e o valor do Pix.")
			return
		}
		claimed = v
	}
	now := sb.now().UTC()
	inf := &infracao{criacao: now, Infracao: apipix.Infracao{IDInfracao: "INF" + randomAlnum(29), EndToEndID: in.EndToEndID,
		Motivo: in.Motivo, Valor: apipix.FormatValor(claimed), ValorBloqueado: apipix.FormatValor(claimed),
		Situacao: apipix.InfracaoBloqueada, Criacao: now.Format(time.RFC3339)}}
	inf.PrazoDefesa = inf.prazo(defesaWithin).Format(time.RFC3339)
	inf.PrazoAnalise = inf.prazo(analiseWithin).Format(time.RFC3339)
	inf.PrazoDevolucao = inf.prazo(devolucaoWithin).Format(time.RFC3339)
	sb.st.infracoes[inf.IDInfracao] = inf
	sb.st.counts["infracao"]++
	sb.notifyInfracaoLocked(inf)
	writeJSON(w, http.StatusOK, inf.Infracao)
}

// notifyInfracaoLocked calls back with where inf stands; the caller holds
// the lock.
func (sb *sandbox) notifyInfracaoLocked(inf *infracao) {
	body, _ := json.Marshal(apipix.InfracoesCallback{Infracoes: []apipix.InfracaoNotification{{IDInfracao: inf.IDInfracao, Situacao: inf.Situacao}}})
	sb.callbacks.notifyLocked("/infracoes", body)
}

// getInfracao handles GET /v2/gn/infracoes/{id}.
func (sb *sandbox) getInfracao(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	inf, ok := sb.st.infracoes[r.PathValue("id")]
	if !ok {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Infração não encontrada", "Nenhuma infração com este id.")
		return
	}
	writeJSON(w, http.StatusOK, inf.Infracao)
}

// postDefesa handles POST /v2/gn/infracoes/{id}/defesa: the receiver's
// account and files, once, until prazoDefesa; the same defesa again
// answers the same.
func (sb *sandbox) postDefesa(w http.ResponseWriter, r *http.Request, body []byte) {
	var req apipix.DefesaRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", err.Error())
		return
	}
	if n := utf8.RuneCountInString(req.Justificativa); n == 0 || n > maxJustificativa || len(req.Anexos) > maxAnexos {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "justificativa de 1 a 5000 caracteres; até 5 anexos.")
		return
	}
	kept := []apipix.AnexoMantido{}
	for _, a := range req.Anexos {
		content, err := base64.StdEncoding.DecodeString(a.Conteudo)
		if err != nil || len(content) == 0 || len(content) > maxAnexo || !slices.Contains(anexoTipos, a.Tipo) || a.Nome == "" {
			problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida",
				"cada anexo tem nome, tipo (application/pdf, image/png ou image/jpeg) e conteúdo em base64 de até 2 MiB.")
			return
		}
		kept = append(kept, apipix.AnexoMantido{Nome: a.Nome, Tipo: a.Tipo, Tamanho: len(content)})
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	inf, ok := sb.st.infracoes[r.PathValue("id")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "NaoEncontrado", "Infração não encontrada", "Nenhuma infração com este id.")
		return
	case inf.defesaBody != nil && bytes.Equal(inf.defesaBody, body):
		sb.st.counts["defesa_repeat"]++
		writeJSON(w, http.StatusOK, inf.Infracao)
		return
	case inf.defesaBody != nil:
		problem(w, http.StatusConflict, "DefesaJaEnviada", "Defesa já enviada", "Esta infração já tem defesa.")
		return
	case inf.Situacao != apipix.InfracaoBloqueada || sb.now().After(inf.prazo(defesaWithin)):
		problem(w, http.StatusUnprocessableEntity, "InfracaoNaoAceitaDefesa", "Infração não aceita defesa", "O prazo de defesa terminou.")
		return
	}
	inf.defesaBody = body
	inf.Defesa = &apipix.DefesaRecebida{Justificativa: req.Justificativa, Anexos: kept, Horario: sb.now().UTC().Format(time.RFC3339)}
	inf.Situacao = apipix.InfracaoEmAnalise
	sb.st.counts["defesa"]++
	sb.notifyInfracaoLocked(inf)
	writeJSON(w, http.StatusOK, inf.Infracao)
}

// decideInfracao handles POST /sandbox/infracoes/{id}/decisao
// {"resultado": "DEVOLVER" | "MANTER"}: the institutions decide now.
func (sb *sandbox) decideInfracao(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Resultado string `json:"resultado"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || (in.Resultado != apipix.ResultadoDevolver && in.Resultado != apipix.ResultadoManter) {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "resultado deve ser DEVOLVER ou MANTER.")
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	inf, ok := sb.st.infracoes[r.PathValue("id")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "NaoEncontrado", "Infração não encontrada", "Nenhuma infração com este id.")
		return
	case inf.Situacao == apipix.InfracaoDecidida:
		problem(w, http.StatusConflict, "InfracaoDecidida", "Infração já decidida", "Esta infração já foi decidida.")
		return
	}
	sb.decideLocked(inf, in.Resultado)
	writeJSON(w, http.StatusOK, inf.Infracao)
}

func (sb *sandbox) decideLocked(inf *infracao, resultado string) {
	inf.Situacao, inf.Resultado = apipix.InfracaoDecidida, resultado
	sb.st.counts["infracao_decidida"]++
	sb.notifyInfracaoLocked(inf)
}

// runInfracaoDeadlines moves every infração on as the clock says: past
// prazoDefesa, under analysis; past prazoAnalise, decided (MANTER when the
// receiver answered, DEVOLVER when it did not).
func (sb *sandbox) runInfracaoDeadlines() {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	now := sb.now()
	for _, inf := range sb.st.infracoes {
		switch {
		case inf.Situacao == apipix.InfracaoDecidida:
		case now.After(inf.prazo(analiseWithin)):
			resultado := apipix.ResultadoDevolver
			if inf.Defesa != nil {
				resultado = apipix.ResultadoManter
			}
			sb.decideLocked(inf, resultado)
		case inf.Situacao == apipix.InfracaoBloqueada && now.After(inf.prazo(defesaWithin)):
			inf.Situacao = apipix.InfracaoEmAnalise
			sb.notifyInfracaoLocked(inf)
		}
	}
}
