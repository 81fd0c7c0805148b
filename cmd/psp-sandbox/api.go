package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"payments/pix"
	"payments/pix/apipix"
)

// sandbox is the PSP: its API (API Pix and the payout port), its bank
// state, and the payer's bank beside it (payer.go).
type sandbox struct {
	st        *state
	spec      *validator
	auth      *issuer
	log       *slog.Logger
	chave     string // the receiver's PIX key at this PSP
	account   string // the receiver's account number at this PSP
	name      string // the receiver's name in BR Codes
	city      string
	apiHost   string // host:port of the API, for charges' locations
	callbacks *caller
	// clockOffset moves the sandbox's clock (clock.go), in nanoseconds.
	clockOffset atomic.Int64
}

// routes mounts the API. Every API Pix call is checked against the
// official document before anything else; the payout port, which API Pix
// lacks, against its own rules (payouts.go).
func (sb *sandbox) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/token", sb.auth.token)
	apiPix := func(scope string, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
		return sb.guard(scope, true, h)
	}
	mux.Handle("PUT /v2/cob/{txid}", apiPix("cob.write", sb.putCob))
	mux.Handle("PATCH /v2/cob/{txid}", apiPix("cob.write", sb.patchCob))
	mux.Handle("GET /v2/cob/{txid}", apiPix("cob.read", sb.getCob))
	mux.Handle("PUT /v2/cobv/{txid}", apiPix("cobv.write", sb.putCobV))
	mux.Handle("PATCH /v2/cobv/{txid}", apiPix("cobv.write", sb.patchCobV))
	mux.Handle("GET /v2/cobv/{txid}", apiPix("cobv.read", sb.getCobV))
	mux.Handle("PUT /v2/lotecobv/{id}", apiPix("lotecobv.write", sb.putLoteCobV))
	mux.Handle("GET /v2/lotecobv/{id}", apiPix("lotecobv.read", sb.getLoteCobV))
	mux.Handle("POST /v2/rec", apiPix("rec.write", sb.postRec))
	mux.Handle("GET /v2/rec/{idRec}", apiPix("rec.read", sb.getRec))
	mux.Handle("PATCH /v2/rec/{idRec}", apiPix("rec.write", sb.patchRec))
	mux.Handle("POST /v2/locrec", apiPix("payloadlocationrec.write", sb.postLocRec))
	mux.Handle("GET /v2/locrec/{id}", apiPix("payloadlocationrec.read", sb.getLocRec))
	mux.Handle("POST /v2/solicrec", apiPix("solicrec.write", sb.postSolicRec))
	mux.Handle("GET /v2/solicrec/{idSolicRec}", apiPix("solicrec.read", sb.getSolicRec))
	mux.Handle("PATCH /v2/solicrec/{idSolicRec}", apiPix("solicrec.write", sb.patchSolicRec))
	putRec, getRec, delRec := sb.webhookFor(&sb.st.webhookRec)
	mux.Handle("PUT /v2/webhookrec", apiPix("webhookrec.write", putRec))
	mux.Handle("GET /v2/webhookrec", apiPix("webhookrec.read", getRec))
	mux.Handle("DELETE /v2/webhookrec", apiPix("webhookrec.write", delRec))
	putCobR, getCobR, delCobR := sb.webhookFor(&sb.st.webhookCobR)
	mux.Handle("PUT /v2/webhookcobr", apiPix("webhookcobr.write", putCobR))
	mux.Handle("GET /v2/webhookcobr", apiPix("webhookcobr.read", getCobR))
	mux.Handle("DELETE /v2/webhookcobr", apiPix("webhookcobr.write", delCobR))
	mux.Handle("PUT /v2/cobr/{txid}", apiPix("cobr.write", sb.putCobR))
	mux.Handle("GET /v2/cobr/{txid}", apiPix("cobr.read", sb.getCobR))
	mux.Handle("PATCH /v2/cobr/{txid}", apiPix("cobr.write", sb.patchCobR))
	mux.Handle("POST /v2/cobr/{txid}/retentativa/{data}", apiPix("cobr.write", sb.retryCobR))
	mux.Handle("GET /v2/pix/{e2eid}", apiPix("pix.read", sb.getPix))
	mux.Handle("GET /v2/pix", apiPix("pix.read", sb.listPix))
	mux.Handle("PUT /v2/pix/{e2eid}/devolucao/{id}", apiPix("pix.write", sb.putDevolucao))
	mux.Handle("GET /v2/pix/{e2eid}/devolucao/{id}", apiPix("pix.read", sb.getDevolucao))
	mux.Handle("PUT /v2/webhook/{chave}", apiPix("webhook.write", sb.putWebhook))
	mux.Handle("GET /v2/webhook/{chave}", apiPix("webhook.read", sb.getWebhook))
	mux.Handle("PUT /v3/gn/pix/{idEnvio}", sb.guard("pix.send", false, sb.putPayout))
	mux.Handle("GET /v2/gn/pix/enviados/id-envio/{idEnvio}", sb.guard("gn.pix.send.read", false, sb.getPayout))
	mux.Handle("GET /v2/gn/infracoes/{id}", sb.guard(apipix.ScopeInfracaoRead, false, sb.getInfracao))
	mux.Handle("POST /v2/gn/infracoes/{id}/defesa", sb.guard(apipix.ScopeInfracaoWrite, false, sb.postDefesa))
	mux.Handle("PUT /v2/gn/med/{id}", sb.guard(apipix.ScopeInfracaoWrite, false, sb.putMED))
	mux.Handle("GET /v2/gn/med/{id}", sb.guard(apipix.ScopeInfracaoRead, false, sb.getMED))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Not found", "No such route in this sandbox.")
	})
	return mux
}

// guard authenticates a call (a live token with scope), validates it
// against the API Pix document when apiPix, and applies the faults.
func (sb *sandbox) guard(scope string, apiPix bool, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", err.Error())
			return
		}
		if len(body) == 0 {
			body = nil
		}
		switch sb.auth.allowed(r, scope) {
		case http.StatusUnauthorized:
			problem(w, http.StatusUnauthorized, "AcessoNegado", "Acesso Negado", "A valid access token is required.")
			return
		case http.StatusForbidden:
			problem(w, http.StatusForbidden, "AcessoNegado", "Acesso Negado", "The token lacks the scope "+scope+".")
			return
		}
		if apiPix {
			if err := sb.spec.check(r, body); err != nil {
				sb.log.Warn("sandbox: request does not conform to API Pix 2.9.0", "method", r.Method, "path", r.URL.Path, "error", err.Error())
				sb.st.mu.Lock()
				sb.st.counts["nonconforming"]++
				sb.st.mu.Unlock()
				problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida",
					"The request does not conform to API Pix 2.9.0: "+err.Error())
				return
			}
			if err := checkDocuments(body); err != nil {
				sb.st.mu.Lock()
				sb.st.counts["invalid_document"]++
				sb.st.mu.Unlock()
				problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", err.Error())
				return
			}
		}
		sb.st.mu.Lock()
		f := sb.st.faults
		sb.st.mu.Unlock()
		time.Sleep(f.latency())
		switch f.draw() {
		case failBefore:
			problem(w, http.StatusServiceUnavailable, "ServicoIndisponivel", "Serviço Indisponível", "Injected fault.")
			return
		case failAfter:
			h(discard{header: http.Header{}}, r, body)
			problem(w, http.StatusServiceUnavailable, "ServicoIndisponivel", "Serviço Indisponível", "Injected fault (after processing).")
			return
		}
		h(w, r, body)
	}
}

// discard swallows an answer that a fault loses.
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

func problem(w http.ResponseWriter, status int, kind, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(apipix.Problem{Type: "https://pix.bcb.gov.br/api/v2/error/" + kind,
		Title: title, Status: status, Detail: detail})
}

func (sb *sandbox) putCob(w http.ResponseWriter, r *http.Request, body []byte) {
	txid := r.PathValue("txid")
	var req apipix.CobRequest
	if err := json.Unmarshal(body, &req); err != nil {
		problem(w, http.StatusBadRequest, "CobOperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	if req.Chave != sb.chave {
		problem(w, http.StatusBadRequest, "CobOperacaoInvalida", "Cobrança inválida", "A chave não pertence a este usuário recebedor.")
		return
	}
	amount, err := apipix.ParseValor(req.Valor.Original)
	if err != nil || amount <= 0 {
		problem(w, http.StatusBadRequest, "CobOperacaoInvalida", "Cobrança inválida", "Valor da cobrança deve ser maior que 0.00.")
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	if _, ok := sb.st.cobs[txid]; ok {
		// As PSPs do: a txid names one charge, created once.
		problem(w, http.StatusBadRequest, "CobOperacaoInvalida", "Cobrança inválida", "O txid informado já foi utilizado.")
		return
	}
	now := sb.now().UTC()
	expiracao := req.Calendario.Expiracao
	if expiracao == 0 {
		expiracao = 86400
	}
	locID := randomAlnum(32)
	location := sb.apiHost + "/qr/v2/" + locID
	code, err := pix.BRCode{Location: location, MerchantName: sb.name, MerchantCity: sb.city, AmountCents: amount, SingleUse: true}.Encode()
	if err != nil {
		problem(w, http.StatusInternalServerError, "ErroInternoDoServidor", "Erro interno", err.Error())
		return
	}
	c := &cob{locID: locID, locSeq: len(sb.st.byLoc) + 1, created: now, body: body, Cob: apipix.Cob{
		Calendario: apipix.Calendario{Criacao: now.Format(time.RFC3339), Expiracao: expiracao},
		TxID:       txid, Location: location, Status: apipix.CobActive, Devedor: req.Devedor, Valor: req.Valor,
		Chave: req.Chave, SolicitacaoPagador: req.SolicitacaoPagador, PixCopiaECola: code,
	}}
	sb.st.cobs[txid], sb.st.byLoc[locID] = c, c
	sb.st.counts["cob"]++
	writeJSON(w, http.StatusCreated, sb.cobJSON(c))
}

// cobJSON is a charge as API Pix answers it (CobGerada / CobCompleta).
func (sb *sandbox) cobJSON(c *cob) map[string]any {
	out := map[string]any{
		"calendario": c.Calendario, "txid": c.TxID, "revisao": c.Revisao, "location": c.Location, "status": c.Status,
		"valor": c.Valor, "chave": c.Chave, "pixCopiaECola": c.PixCopiaECola,
		"loc": map[string]any{"id": c.locSeq, "location": c.Location, "tipoCob": "cob", "criacao": c.Calendario.Criacao},
	}
	if c.Devedor != nil {
		out["devedor"] = c.Devedor
	}
	if c.SolicitacaoPagador != "" {
		out["solicitacaoPagador"] = c.SolicitacaoPagador
	}
	if len(c.Pix) > 0 {
		out["pix"] = c.Pix
	}
	return out
}

func (sb *sandbox) patchCob(w http.ResponseWriter, r *http.Request, body []byte) {
	var rev apipix.CobRevision
	if err := json.Unmarshal(body, &rev); err != nil {
		problem(w, http.StatusBadRequest, "CobOperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobs[r.PathValue("txid")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "CobNaoEncontrado", "Cobrança não encontrada", "Nenhuma cobrança com este txid.")
		return
	case rev.Status == apipix.CobRemovedByUser && c.Status == apipix.CobCompleted:
		problem(w, http.StatusBadRequest, "CobOperacaoInvalida", "Cobrança inválida", "A cobrança já foi paga e não pode ser removida.")
		return
	case rev.Status == apipix.CobRemovedByUser && c.Status == apipix.CobActive:
		c.Status = apipix.CobRemovedByUser
		c.Revisao++
		sb.st.counts["cob.remove"]++
	}
	writeJSON(w, http.StatusOK, sb.cobJSON(c))
}

func (sb *sandbox) getCob(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobs[r.PathValue("txid")]
	if !ok {
		problem(w, http.StatusNotFound, "CobNaoEncontrado", "Cobrança não encontrada", "Nenhuma cobrança com este txid.")
		return
	}
	writeJSON(w, http.StatusOK, sb.cobJSON(c))
}

func (sb *sandbox) getPix(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	p, ok := sb.st.pix[r.PathValue("e2eid")]
	if !ok {
		problem(w, http.StatusNotFound, "PixNaoEncontrado", "Pix não encontrado", "Nenhum Pix recebido com este endToEndId.")
		return
	}
	writeJSON(w, http.StatusOK, p.withDevolucoes())
}

func (sb *sandbox) listPix(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	inicio, err1 := time.Parse(time.RFC3339, q.Get("inicio"))
	fim, err2 := time.Parse(time.RFC3339, q.Get("fim"))
	if err1 != nil || err2 != nil || fim.Before(inicio) {
		problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida", "inicio e fim devem ser RFC 3339, fim depois de inicio.")
		return
	}
	page, _ := strconv.Atoi(q.Get("paginacao.paginaAtual"))
	perPage, _ := strconv.Atoi(q.Get("paginacao.itensPorPagina"))
	if perPage <= 0 || perPage > 1000 {
		perPage = 100
	}
	writeJSON(w, http.StatusOK, sb.st.pixList(inicio, fim, max(page, 0), perPage))
}

func (sb *sandbox) putDevolucao(w http.ResponseWriter, r *http.Request, body []byte) {
	var req apipix.DevolucaoRequest
	if err := json.Unmarshal(body, &req); err != nil {
		problem(w, http.StatusBadRequest, "PixDevolucaoInvalida", "Devolução inválida", err.Error())
		return
	}
	amount, err := apipix.ParseValor(req.Valor)
	if err != nil || amount <= 0 {
		problem(w, http.StatusBadRequest, "PixDevolucaoInvalida", "Devolução inválida", "Valor da devolução deve ser maior que 0.00.")
		return
	}
	e2e, id := r.PathValue("e2eid"), r.PathValue("id")
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	p, ok := sb.st.pix[e2e]
	if !ok {
		problem(w, http.StatusNotFound, "PixNaoEncontrado", "Pix não encontrado", "Nenhum Pix recebido com este endToEndId.")
		return
	}
	if d, ok := p.devolucoes[id]; ok {
		// The same id names the same devolução: a repeat is answered with it.
		if !bytes.Equal(d.body, body) {
			problem(w, http.StatusBadRequest, "PixDevolucaoInvalida", "Devolução inválida", "Este id de devolução já foi usado com outros dados.")
			return
		}
		sb.st.counts["devolucao_repeat"]++
		writeJSON(w, http.StatusCreated, d.Devolucao)
		return
	}
	paid, _ := apipix.ParseValor(p.Valor)
	var returned int64
	for _, d := range p.devolucoes {
		if d.Status != apipix.DevolucaoNotDone {
			v, _ := apipix.ParseValor(d.Valor)
			returned += v
		}
	}
	if returned+amount > paid {
		problem(w, http.StatusBadRequest, "PixDevolucaoInvalida", "Devolução inválida",
			fmt.Sprintf("A soma das devoluções (%s) não pode ultrapassar o valor do Pix (%s).", apipix.FormatValor(returned+amount), p.Valor))
		return
	}
	now := time.Now().UTC()
	d := &devolucao{body: body, Devolucao: apipix.Devolucao{ID: id, RtrID: newE2E("D", now), Valor: req.Valor,
		Natureza: "ORIGINAL", Descricao: req.Descricao, Horario: apipix.Horario{Solicitacao: now.Format(time.RFC3339Nano)},
		Status: apipix.DevolucaoProcessing}}
	p.devolucoes[id] = d
	sb.st.counts["devolucao"]++
	delay, refuse := sb.st.faults.devolucaoDelay(), sb.st.faults.RefuseDevolucoes
	time.AfterFunc(delay, func() { sb.settleDevolucao(e2e, id, refuse) })
	writeJSON(w, http.StatusCreated, d.Devolucao)
}

// settleDevolucao ends a devolução and notifies the webhook with its Pix.
func (sb *sandbox) settleDevolucao(e2e, id string, refuse bool) {
	sb.st.mu.Lock()
	p := sb.st.pix[e2e]
	d := p.devolucoes[id]
	d.Status, d.Horario.Liquidacao = apipix.DevolucaoReturned, time.Now().UTC().Format(time.RFC3339Nano)
	if refuse {
		d.Status, d.Motivo, d.Horario.Liquidacao = apipix.DevolucaoNotDone, "Conta do pagador encerrada.", ""
	}
	item := apipix.CallbackItem{Pix: p.withDevolucoes()}
	sb.st.mu.Unlock()
	sb.callbacks.notify(item)
}

func (sb *sandbox) getDevolucao(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	p, ok := sb.st.pix[r.PathValue("e2eid")]
	var d *devolucao
	if ok {
		d, ok = p.devolucoes[r.PathValue("id")]
	}
	if !ok {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Devolução não encontrada", "Nenhuma devolução com este id.")
		return
	}
	writeJSON(w, http.StatusOK, d.Devolucao)
}

func (sb *sandbox) putWebhook(w http.ResponseWriter, r *http.Request, body []byte) {
	var req apipix.WebhookRequest
	if err := json.Unmarshal(body, &req); err != nil || req.WebhookURL == "" {
		problem(w, http.StatusBadRequest, "WebhookOperacaoInvalida", "Webhook inválido", "webhookUrl é obrigatório.")
		return
	}
	if r.PathValue("chave") != sb.chave {
		problem(w, http.StatusBadRequest, "WebhookOperacaoInvalida", "Webhook inválido", "A chave não pertence a este usuário recebedor.")
		return
	}
	sb.st.mu.Lock()
	sb.st.webhooks[sb.chave] = req.WebhookURL
	sb.st.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (sb *sandbox) getWebhook(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	url, ok := sb.st.webhooks[r.PathValue("chave")]
	sb.st.mu.Unlock()
	if !ok {
		problem(w, http.StatusNotFound, "WebhookNaoEncontrado", "Webhook não encontrado", "Nenhum webhook para esta chave.")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"webhookUrl": url, "chave": r.PathValue("chave"),
		"criacao": time.Now().UTC().Format(time.RFC3339)})
}

// idEnvioPattern is the payout port's id: Efí's rule.
var idEnvioPattern = regexp.MustCompile(`^[a-zA-Z0-9]{1,35}$`)
