package main

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
	"time"

	"payments/pix"
	"payments/pix/apipix"
	"payments/pix/calendar"
)

// The payer's bank, beside the PSP: a page where a person pastes a "Pix
// copia e cola" and pays it, the same as JSON for tests, transfers that
// name a txid without a charge (a manual Pix), and the sandbox's controls.
// It listens on a plain-HTTP loopback port of its own.

func (sb *sandbox) payerRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/payer", http.StatusSeeOther) })
	mux.HandleFunc("GET /payer", sb.payerPage)
	mux.HandleFunc("POST /payer", sb.payerSubmit)
	mux.HandleFunc("GET /payer/recs", sb.recsPage)
	mux.HandleFunc("GET /payer/recs/{idRec}", sb.recPage)
	mux.HandleFunc("POST /payer/recs/{idRec}", sb.recSubmit)
	mux.HandleFunc("POST /sandbox/pay", sb.payJSON)
	mux.HandleFunc("POST /sandbox/transfer", sb.transferJSON)
	mux.HandleFunc("GET /sandbox/faults", sb.getFaults)
	mux.HandleFunc("POST /sandbox/faults", sb.setFaults)
	mux.HandleFunc("GET /sandbox/state", sb.stateJSON)
	mux.HandleFunc("GET /sandbox/clock", sb.getClock)
	mux.HandleFunc("POST /sandbox/clock", sb.setClock)
	mux.HandleFunc("GET /sandbox/cobv/{txid}/payload", sb.payloadJSON)
	mux.HandleFunc("POST /sandbox/rec/{idRec}/{action}", sb.answerRec)
	mux.HandleFunc("POST /sandbox/balance", sb.setBalance)
	mux.HandleFunc("POST /sandbox/cobr/{txid}/debit", sb.debitCobR)
	mux.HandleFunc("POST /sandbox/infracoes", sb.reportInfracao)
	mux.HandleFunc("POST /sandbox/infracoes/{id}/decisao", sb.decideInfracao)
	mux.HandleFunc("POST /sandbox/med/{id}/resultado", sb.decideMED)
	return mux
}

var payerTemplate = template.Must(template.New("payer").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Banco de testes · Pix</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1f2937}
textarea{width:100%;min-height:8rem;font-family:monospace}button{margin-top:1rem;padding:.6rem 1.2rem;background:#059669;color:#fff;border:0;border-radius:.4rem;font-size:1rem}
.ok{background:#ecfdf5;border:1px solid #059669;padding:1rem;border-radius:.4rem}.err{background:#fef2f2;border:1px solid #dc2626;padding:1rem;border-radius:.4rem}</style></head>
<body><h1>Banco de testes</h1>
<p>Este é o banco do pagador do sandbox de PSP: cole o <strong>Pix copia e cola</strong> de uma cobrança ao vivo e pague-a. O PSP avisa o serviço como um PSP de verdade.</p>
<p>Um código de Pix Automático mostra a autorização pedida. Suas autorizações: <a href="/payer/recs">Pix Automático</a>.</p>
{{if .Paid}}<div class="ok" data-testid="paid"><p>Pago: {{.Amount}}. endToEndId <code>{{.E2E}}</code>.</p>
<p>Recebedor: <strong data-testid="paid-receiver">{{.Receiver}}</strong>{{if .Message}}<br>Mensagem do recebedor: <span data-testid="paid-message">{{.Message}}</span>{{end}}</p></div>{{end}}
{{if .Error}}<p class="err" data-testid="error">{{.Error}}</p>{{end}}
<form method="post" action="/payer"><label for="code">Pix copia e cola</label>
<textarea id="code" name="code" required>{{.Code}}</textarea>
<label for="valor">Valor (só para um QR code estático sem valor, como 12.34)</label>
<input id="valor" name="valor" inputmode="decimal">
<button type="submit" data-testid="pay">Pagar</button></form></body></html>`))

type payerView struct {
	Code, Error, E2E, Amount string
	Paid                     bool
	// Receiver is the name the key's holder is registered under, as a
	// payer's bank shows it; Message the charge's solicitacaoPagador.
	Receiver, Message string
}

func (sb *sandbox) payerPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = payerTemplate.Execute(w, payerView{Code: r.URL.Query().Get("code")})
}

func (sb *sandbox) payerSubmit(w http.ResponseWriter, r *http.Request) {
	code := strings.TrimSpace(r.FormValue("code"))
	if idRec, ok := sb.recurrenceOf(code); ok {
		// A Pix Automático QR: the bank shows what it authorizes (and, on a
		// QR composto, the first payment) before anything is paid.
		http.Redirect(w, r, "/payer/recs/"+idRec, http.StatusSeeOther)
		return
	}
	view := payerView{Code: code}
	p, err := sb.payCode(code, strings.TrimSpace(r.FormValue("valor")))
	if err != nil {
		view.Error = err.Error()
		w.WriteHeader(http.StatusUnprocessableEntity)
	} else {
		amount, _ := apipix.ParseValor(p.Valor)
		view.Paid, view.E2E, view.Amount = true, p.EndToEndID, pix.FormatBRL(amount)
		view.Receiver, view.Message = sb.name, sb.chargeMessage(p.TxID)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = payerTemplate.Execute(w, view)
}

// chargeMessage is the solicitacaoPagador of the charge txid ("" for none).
func (sb *sandbox) chargeMessage(txid string) string {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	if c, ok := sb.st.cobs[txid]; ok {
		return c.SolicitacaoPagador
	}
	if c, ok := sb.st.cobvs[txid]; ok {
		return c.SolicitacaoPagador
	}
	return ""
}

// payJSON handles POST /sandbox/pay {"code"} or {"txid"}: the payer pays a charge.
func (sb *sandbox) payJSON(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
		TxID string `json:"txid"`
		// Valor is what the payer types for a static code without an amount.
		Valor string `json:"valor"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	var p *apipix.Pix
	var err error
	if in.TxID != "" {
		p, err = sb.payTxID(in.TxID)
	} else {
		p, err = sb.payCode(in.Code, in.Valor)
	}
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// payCode pays the charge a dynamic BR Code points to, or a static code
// of this PSP's receiver (its amount, or valor when it has none).
func (sb *sandbox) payCode(code, valor string) (*apipix.Pix, error) {
	d, err := pix.Decode(code)
	if err != nil {
		return nil, payerMessage("Este não é um Pix copia e cola válido: " + err.Error())
	}
	if key := d.MerchantAccount["01"]; key != "" {
		return sb.payStatic(key, d.Fields["54"], valor, d.AdditionalData["05"])
	}
	location := d.MerchantAccount["25"]
	i := strings.LastIndex(location, "/qr/v2/")
	if i < 0 {
		return nil, payerMessage("Este código não aponta para uma cobrança deste PSP.")
	}
	locID := location[i+len("/qr/v2/"):]
	sb.st.mu.Lock()
	var txid string
	if c, ok := sb.st.byLoc[locID]; ok {
		txid = c.TxID
	} else if c, ok := sb.st.cobvByLoc[strings.TrimPrefix(locID, "cobv/")]; ok {
		txid = c.TxID
	}
	sb.st.mu.Unlock()
	if txid == "" {
		return nil, payerMessage("Cobrança não encontrada neste PSP.")
	}
	return sb.payTxID(txid)
}

// payStatic pays a static code to key, as the payer's bank does: a Pix of
// the code's amount (or of valor, typed by the payer, when it has none)
// naming its txid, settled at once and called back.
func (sb *sandbox) payStatic(key, amount, valor, txid string) (*apipix.Pix, error) {
	if key != sb.chave {
		return nil, payerMessage("Esta chave não é de um recebedor deste PSP.")
	}
	if amount == "" {
		amount = valor
	}
	if v, err := apipix.ParseValor(amount); err != nil || v <= 0 {
		return nil, payerMessage("Digite o valor a pagar, como 12.34.")
	}
	if txid == "***" {
		txid = ""
	}
	sb.st.mu.Lock()
	p := sb.receive(txid, amount, key)
	item := apipix.CallbackItem{Pix: p.withDevolucoes()}
	sb.st.mu.Unlock()
	sb.callbacks.notify(item)
	return &item.Pix, nil
}

// payTxID pays the charge txid as the payer's bank does with a dynamic
// code's payload: a charge (cob) in full, a due-date charge (cobv) what it
// owes on the sandbox's date, computed from its terms.
func (sb *sandbox) payTxID(txid string) (*apipix.Pix, error) {
	sb.st.mu.Lock()
	var (
		status       *string
		received     *[]apipix.Pix
		chave, valor string
		ended        string // why it can no longer be paid
	)
	if c, ok := sb.st.cobs[txid]; ok {
		status, received, chave, valor = &c.Status, &c.Pix, c.Chave, c.Valor.Original
		if sb.now().After(c.created.Add(time.Duration(c.Calendario.Expiracao) * time.Second)) {
			ended = "Esta cobrança expirou."
		}
	} else if c, ok := sb.st.cobvs[txid]; ok {
		owed := c.terms.On(c.amount, calendar.Today(sb.now()))
		status, received, chave, valor = &c.Status, &c.Pix, c.Chave, apipix.FormatValor(owed.AmountDueCents)
		if !owed.Payable {
			ended = "Esta cobrança venceu e não pode mais ser paga."
		}
	} else {
		sb.st.mu.Unlock()
		return nil, payerMessage("Cobrança não encontrada neste PSP.")
	}
	switch {
	case *status == apipix.CobCompleted:
		sb.st.mu.Unlock()
		return nil, payerMessage("Esta cobrança já foi paga.")
	case *status != apipix.CobActive:
		sb.st.mu.Unlock()
		return nil, payerMessage("Esta cobrança foi removida pelo recebedor.")
	case ended != "":
		sb.st.mu.Unlock()
		return nil, payerMessage(ended)
	}
	*status = apipix.CobCompleted
	p := sb.receive(txid, valor, chave)
	*received = append(*received, p.Pix)
	item := apipix.CallbackItem{Pix: p.withDevolucoes()}
	sb.st.mu.Unlock()
	sb.callbacks.notify(item)
	return &item.Pix, nil
}

// receive books a Pix received; the caller holds the lock.
func (sb *sandbox) receive(txid, valor, chave string) *pixIn {
	return sb.receiveAs(newE2E("E", sb.now()), txid, valor, chave)
}

// receiveAs books a Pix received under the endToEndId e2e (a recurring
// charge's attempt names its own); the caller holds the lock.
func (sb *sandbox) receiveAs(e2e, txid, valor, chave string) *pixIn {
	now := sb.now().UTC()
	p := &pixIn{at: now, devolucoes: map[string]*devolucao{}, Pix: apipix.Pix{
		EndToEndID: e2e, TxID: txid, Valor: valor, Chave: chave,
		Horario: now.Format(time.RFC3339Nano), InfoPagador: "Pago no banco de testes",
	}}
	sb.st.pix[p.EndToEndID] = p
	sb.st.order = append(sb.st.order, p.EndToEndID)
	sb.st.counts["pix"]++
	return p
}

// transferJSON handles POST /sandbox/transfer {"txid","valor"}: a Pix to
// the receiver's key naming a txid, with no charge behind it (a manual
// transfer, or one of the wrong amount).
func (sb *sandbox) transferJSON(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TxID  string `json:"txid"`
		Valor string `json:"valor"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if _, err := apipix.ParseValor(in.Valor); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	sb.st.mu.Lock()
	p := sb.receive(in.TxID, in.Valor, sb.chave)
	if c, ok := sb.st.cobs[in.TxID]; ok {
		c.Pix = append(c.Pix, p.Pix)
	} else if c, ok := sb.st.cobvs[in.TxID]; ok {
		c.Pix = append(c.Pix, p.Pix)
	}
	item := apipix.CallbackItem{Pix: p.withDevolucoes()}
	sb.st.mu.Unlock()
	sb.callbacks.notify(item)
	writeJSON(w, http.StatusOK, item.Pix)
}

func (sb *sandbox) getFaults(w http.ResponseWriter, _ *http.Request) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	writeJSON(w, http.StatusOK, sb.st.faults)
}

// setFaults handles POST /sandbox/faults: the whole set, replacing the last.
func (sb *sandbox) setFaults(w http.ResponseWriter, r *http.Request) {
	var f faults
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	sb.st.mu.Lock()
	sb.st.faults = f
	sb.st.mu.Unlock()
	writeJSON(w, http.StatusOK, f)
}

// stateJSON handles GET /sandbox/state: what the bank holds, for tests to
// count (no duplicate devolução or payout, say).
func (sb *sandbox) stateJSON(w http.ResponseWriter, _ *http.Request) {
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	type devolucaoState struct {
		EndToEndID string `json:"endToEndId"`
		apipix.Devolucao
	}
	out := struct {
		Cobs          map[string]string       `json:"cobs"` // txid -> status
		Pix           []apipix.Pix            `json:"pix"`
		Devolucoes    []devolucaoState        `json:"devolucoes"`
		Payouts       []apipix.Payout         `json:"payouts"`
		Webhooks      map[string]string       `json:"webhooks"`
		WebhookRec    string                  `json:"webhook_rec"`
		WebhookCobR   string                  `json:"webhook_cobr"`
		Recs          map[string]string       `json:"recs"`      // idRec -> status
		SolicRecs     map[string]string       `json:"solicrecs"` // idSolicRec -> status
		CobRs         map[string]string       `json:"cobrs"`     // txid -> status
		Counts        map[string]int          `json:"counts"`
		TokenRequests int                     `json:"token_requests"`
		Callbacks     map[string]int64        `json:"callbacks"`
		Infracoes     []apipix.Infracao       `json:"infracoes"`
		MED           []apipix.MEDSolicitacao `json:"med"`
	}{Infracoes: []apipix.Infracao{}, MED: []apipix.MEDSolicitacao{}, Cobs: map[string]string{}, Pix: []apipix.Pix{}, Devolucoes: []devolucaoState{}, Payouts: []apipix.Payout{},
		Webhooks: sb.st.webhooks, WebhookRec: sb.st.webhookRec, WebhookCobR: sb.st.webhookCobR, Recs: map[string]string{},
		CobRs: map[string]string{}, SolicRecs: map[string]string{}, Counts: sb.st.counts, TokenRequests: sb.auth.tokenRequests(),
		Callbacks: map[string]int64{"sent": sb.callbacks.sent.Load(), "dropped": sb.callbacks.dropped.Load()}}
	for txid, c := range sb.st.cobs {
		out.Cobs[txid] = c.Status
	}
	for _, inf := range sb.st.infracoes {
		out.Infracoes = append(out.Infracoes, inf.Infracao)
	}
	for _, m := range sb.st.med {
		out.MED = append(out.MED, m.MEDSolicitacao)
	}
	for txid, c := range sb.st.cobvs {
		out.Cobs[txid] = c.Status
	}
	for id, rec := range sb.st.recs {
		out.Recs[id] = rec.Status
	}
	for txid, c := range sb.st.cobrs {
		out.CobRs[txid] = c.Status
	}
	for id, s := range sb.st.solicrecs {
		out.SolicRecs[id] = s.Status
	}
	for _, e2e := range sb.st.order {
		p := sb.st.pix[e2e]
		out.Pix = append(out.Pix, p.withDevolucoes())
		for _, d := range p.devolucoes {
			out.Devolucoes = append(out.Devolucoes, devolucaoState{EndToEndID: e2e, Devolucao: d.Devolucao})
		}
	}
	for _, p := range sb.st.payouts {
		out.Payouts = append(out.Payouts, p.Payout)
	}
	writeJSON(w, http.StatusOK, out)
}

// payerMessage is what the payer's bank tells the person paying: a sentence
// in Portuguese, shown as it is.
type payerMessage string

func (m payerMessage) Error() string { return string(m) }
