package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"payments/pix"
	"payments/pix/apipix"
	"payments/pix/calendar"
	"payments/pix/cobv"
)

// A due-date charge (cobv) as the sandbox holds it: API Pix's view, and
// the terms it computes what a payer owes from, with the sandbox's clock
// (clock.go) and the service's own computation (pix/cobv), as every PSP
// and payer's bank computes it from the same published rules.
type dueCob struct {
	apipix.CobV
	terms   cobv.Terms
	amount  int64
	locID   string
	locSeq  int
	created time.Time
	body    []byte
}

// dueCobRefusal is a cobv request the PSP refuses (CobVOperacaoInvalida).
type dueCobRefusal string

func (r dueCobRefusal) Error() string { return string(r) }

// checkDueCob applies the semantic rules API Pix lists for PUT /cobv
// (the document's schema having been checked already) and reads the terms.
func (sb *sandbox) checkDueCob(req apipix.CobVRequest, today calendar.Date) (cobv.Terms, int64, error) {
	if req.Chave != sb.chave {
		return cobv.Terms{}, 0, dueCobRefusal("O campo cobv.chave corresponde a uma conta que não pertence a este usuário recebedor.")
	}
	if req.Calendario == nil || req.Valor == nil || req.Devedor == nil {
		return cobv.Terms{}, 0, dueCobRefusal("calendario, valor e devedor são obrigatórios.")
	}
	if d := req.Valor.Desconto; d != nil {
		fixed := d.Modalidade == 1 || d.Modalidade == 2
		switch {
		case fixed && d.ValorPerc != "":
			return cobv.Terms{}, 0, dueCobRefusal("O objeto cobv.valor.desconto apresenta modalidade 1 ou 2, porém valorPerc encontra-se preenchido.")
		case fixed && len(d.DescontoDataFixa) == 0:
			return cobv.Terms{}, 0, dueCobRefusal("O objeto cobv.valor.desconto apresenta modalidade 1 ou 2, porém descontoDataFixa está vazio.")
		case !fixed && d.ValorPerc == "":
			return cobv.Terms{}, 0, dueCobRefusal("O objeto cobv.valor.desconto apresenta modalidade de 3 a 6, porém valorPerc não está preenchido.")
		case !fixed && len(d.DescontoDataFixa) > 0:
			return cobv.Terms{}, 0, dueCobRefusal("O objeto cobv.valor.desconto apresenta modalidade de 3 a 6, porém descontoDataFixa está preenchido.")
		}
	}
	terms, amount, err := cobv.FromValor(*req.Calendario, *req.Valor)
	switch {
	case err != nil:
		return cobv.Terms{}, 0, dueCobRefusal("cobv.valor não respeita o schema: " + err.Error())
	case amount <= 0:
		return cobv.Terms{}, 0, dueCobRefusal("O campo cobv.valor.original apresenta o valor zero.")
	}
	if p := terms.Check(amount, today); p != nil {
		return cobv.Terms{}, 0, dueCobRefusal("Cobrança inválida: " + p.Message)
	}
	return terms, amount, nil
}

// createDueCob makes the charge txid; the caller holds the lock.
func (sb *sandbox) createDueCob(txid string, req apipix.CobVRequest, body []byte, now time.Time) (*dueCob, error) {
	if _, ok := sb.st.cobvs[txid]; ok {
		return nil, dueCobRefusal("O txid informado já foi utilizado.")
	}
	if _, ok := sb.st.cobs[txid]; ok {
		return nil, dueCobRefusal("O txid informado já foi utilizado por uma cobrança imediata.")
	}
	terms, amount, err := sb.checkDueCob(req, calendar.Today(now))
	if err != nil {
		return nil, err
	}
	locID := randomAlnum(32)
	location := sb.apiHost + "/qr/v2/cobv/" + locID
	// The payer's bank reads the amount from the location on the day it
	// pays: the code carries none.
	code, err := pix.BRCode{Location: location, MerchantName: sb.name, MerchantCity: sb.city, SingleUse: true}.Encode()
	if err != nil {
		return nil, err
	}
	days := terms.DaysAfterDue
	c := &dueCob{terms: terms, amount: amount, locID: locID, locSeq: len(sb.st.byLoc) + len(sb.st.cobvByLoc) + 1, created: now, body: body,
		CobV: apipix.CobV{
			Calendario: apipix.CalendarioV{Criacao: now.UTC().Format(time.RFC3339), DataDeVencimento: terms.DueDate, ValidadeAposVencimento: &days},
			TxID:       txid, Location: location, Status: apipix.CobActive, Devedor: req.Devedor, Valor: *req.Valor,
			Chave: req.Chave, SolicitacaoPagador: req.SolicitacaoPagador, PixCopiaECola: code,
		}}
	sb.st.cobvs[txid], sb.st.cobvByLoc[locID] = c, c
	sb.st.counts["cobv"]++
	return c, nil
}

func (sb *sandbox) putCobV(w http.ResponseWriter, r *http.Request, body []byte) {
	var req apipix.CobVRequest
	if err := json.Unmarshal(body, &req); err != nil {
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, err := sb.createDueCob(r.PathValue("txid"), req, body, sb.now())
	if err != nil {
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, sb.cobvJSON(c))
}

// cobvJSON is a due-date charge as API Pix answers it (CobVGerada / CobVCompleta).
func (sb *sandbox) cobvJSON(c *dueCob) map[string]any {
	out := map[string]any{
		"calendario": c.Calendario, "txid": c.TxID, "revisao": c.Revisao, "location": c.Location, "status": c.Status,
		"valor": c.Valor, "chave": c.Chave, "pixCopiaECola": c.PixCopiaECola, "devedor": c.Devedor,
		"recebedor": map[string]any{"nome": sb.name, "cidade": sb.city, "uf": "SP", "cnpj": "00000000000191", "logradouro": "Avenida Paulista, 1000", "cep": "01310100"},
		"loc":       map[string]any{"id": c.locSeq, "location": c.Location, "tipoCob": "cobv", "criacao": c.Calendario.Criacao},
	}
	if c.SolicitacaoPagador != "" {
		out["solicitacaoPagador"] = c.SolicitacaoPagador
	}
	if len(c.Pix) > 0 {
		out["pix"] = c.Pix
	}
	return out
}

func (sb *sandbox) getCobV(w http.ResponseWriter, r *http.Request, _ []byte) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobvs[r.PathValue("txid")]
	if !ok {
		problem(w, http.StatusNotFound, "CobVNaoEncontrada", "Cobrança não encontrada", "Nenhuma cobrança com vencimento com este txid.")
		return
	}
	writeJSON(w, http.StatusOK, sb.cobvJSON(c))
}

// patchCobV revises a due-date charge: its removal, or new terms while it
// is active.
func (sb *sandbox) patchCobV(w http.ResponseWriter, r *http.Request, body []byte) {
	var rev apipix.CobVRequest
	if err := json.Unmarshal(body, &rev); err != nil {
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobvs[r.PathValue("txid")]
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "CobVNaoEncontrada", "Cobrança não encontrada", "Nenhuma cobrança com vencimento com este txid.")
		return
	case c.Status != apipix.CobActive && (rev.Status != "" || rev.Valor != nil || rev.Calendario != nil):
		if rev.Status == apipix.CobRemovedByUser && c.Status == apipix.CobRemovedByUser {
			writeJSON(w, http.StatusOK, sb.cobvJSON(c))
			return
		}
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida", "A cobrança não está ATIVA e não pode ser alterada.")
		return
	case rev.Status == apipix.CobRemovedByUser && (rev.Valor != nil || rev.Calendario != nil || rev.Devedor != nil):
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida",
			"Não se remove uma cobrança ao mesmo tempo em que se realizam alterações.")
		return
	case rev.Status == apipix.CobRemovedByUser:
		c.Status = apipix.CobRemovedByUser
		c.Revisao++
		sb.st.counts["cobv.remove"]++
		writeJSON(w, http.StatusOK, sb.cobvJSON(c))
		return
	}
	next := apipix.CobVRequest{Calendario: &c.Calendario, Valor: &c.Valor, Devedor: c.Devedor, Chave: c.Chave}
	if rev.Calendario != nil {
		next.Calendario = rev.Calendario
	}
	if rev.Valor != nil {
		next.Valor = rev.Valor
	}
	if rev.Devedor != nil {
		next.Devedor = rev.Devedor
	}
	terms, amount, err := sb.checkDueCob(next, calendar.Today(c.created))
	if err != nil {
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida", err.Error())
		return
	}
	days := terms.DaysAfterDue
	c.terms, c.amount, c.Valor, c.Devedor = terms, amount, *next.Valor, next.Devedor
	c.Calendario.DataDeVencimento, c.Calendario.ValidadeAposVencimento = terms.DueDate, &days
	c.Revisao++
	sb.st.counts["cobv.revise"]++
	writeJSON(w, http.StatusOK, sb.cobvJSON(c))
}

// payloadJSON handles GET /sandbox/cobv/{txid}/payload on the payer's
// side: the charge as the payer's bank reads it from its location on the
// sandbox's date (API Pix's CobVPayload, unsigned), with valor.final.
func (sb *sandbox) payloadJSON(w http.ResponseWriter, r *http.Request) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	c, ok := sb.st.cobvs[r.PathValue("txid")]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Cobrança não encontrada neste PSP."})
		return
	}
	now := sb.now()
	owed := c.terms.On(c.amount, calendar.Today(now))
	valor := map[string]string{"original": apipix.FormatValor(owed.AmountCents), "final": apipix.FormatValor(owed.AmountDueCents)}
	for name, cents := range map[string]int64{"abatimento": owed.AbatementCents, "desconto": owed.DiscountCents, "multa": owed.FineCents, "juros": owed.InterestCents} {
		if cents > 0 {
			valor[name] = apipix.FormatValor(cents)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"txid": c.TxID, "revisao": c.Revisao, "status": c.Status, "chave": c.Chave, "devedor": c.Devedor,
		"calendario": map[string]any{"criacao": c.Calendario.Criacao, "apresentacao": now.UTC().Format(time.RFC3339),
			"dataDeVencimento": c.Calendario.DataDeVencimento, "validadeAposVencimento": c.Calendario.ValidadeAposVencimento},
		"valor": valor, "payable": owed.Payable, "date": owed.Date.String(),
	})
}

// A batch (lotecobv): its charges' requests, each created or refused in
// order after the PUT answered, as PSPs process batches.
type lote struct {
	id        int64
	descricao string
	criacao   time.Time
	items     []*loteItem
}

type loteItem struct {
	txid     string
	status   string
	problema *apipix.Problem
	criacao  time.Time
}

func (sb *sandbox) putLoteCobV(w http.ResponseWriter, r *http.Request, body []byte) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		problem(w, http.StatusBadRequest, "LoteCobVOperacaoInvalida", "Lote inválido", "O id do lote é um número.")
		return
	}
	var req apipix.LoteCobVRequest
	if err := json.Unmarshal(body, &req); err != nil {
		problem(w, http.StatusBadRequest, "LoteCobVOperacaoInvalida", "Lote inválido", err.Error())
		return
	}
	sb.st.mu.Lock()
	if _, ok := sb.st.lotes[id]; ok {
		sb.st.mu.Unlock()
		problem(w, http.StatusBadRequest, "LoteCobVOperacaoInvalida", "Lote inválido",
			"A requisição tenta criar um conjunto de cobranças dentre as quais pelo menos uma já se encontra criada.")
		return
	}
	l := &lote{id: id, descricao: req.Descricao, criacao: sb.now()}
	for _, item := range req.CobsV {
		l.items = append(l.items, &loteItem{txid: item.TxID, status: apipix.LoteProcessing})
	}
	sb.st.lotes[id] = l
	sb.st.counts["lotecobv"]++
	sb.st.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
	// Processed in the background, charge by charge, as PSPs do: GET
	// /lotecobv/{id} shows each EM_PROCESSAMENTO until it is CRIADA or NEGADA.
	go func() {
		for i, item := range req.CobsV {
			raw, _ := json.Marshal(item.CobVRequest)
			sb.st.mu.Lock()
			now := sb.now()
			_, err := sb.createDueCob(item.TxID, item.CobVRequest, raw, now)
			li := l.items[i]
			li.criacao = now
			if err != nil {
				li.status = apipix.LoteRefused
				li.problema = &apipix.Problem{Type: "https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida", Title: "Cobrança inválida",
					Status: http.StatusBadRequest, Detail: err.Error()}
			} else {
				li.status = apipix.LoteCreated
			}
			sb.st.mu.Unlock()
		}
	}()
}

func (sb *sandbox) getLoteCobV(w http.ResponseWriter, r *http.Request, _ []byte) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	l, ok := sb.st.lotes[id]
	if !ok {
		problem(w, http.StatusNotFound, "LoteCobVNaoEncontrado", "Lote não encontrado", fmt.Sprintf("Nenhum lote com o id %d.", id))
		return
	}
	out := apipix.LoteCobV{ID: l.id, Descricao: l.descricao, Criacao: l.criacao.UTC().Format(time.RFC3339), CobsV: []apipix.LoteCobVStatus{}}
	for _, item := range l.items {
		s := apipix.LoteCobVStatus{TxID: item.txid, Status: item.status, Problema: item.problema}
		if !item.criacao.IsZero() {
			s.Criacao = item.criacao.UTC().Format(time.RFC3339)
		}
		out.CobsV = append(out.CobsV, s)
	}
	writeJSON(w, http.StatusOK, out)
}
