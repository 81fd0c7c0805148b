package main

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"payments/pix"
	"payments/pix/apipix"
	"payments/pix/calendar"
)

// The payer's bank's Pix Automático: the authorizations a payer was asked
// for (a QR they scanned, or a request their bank received) and those they
// gave, each with what it authorizes (receiver, amount or ceiling,
// periodicity, start and end) and the buttons a bank's app has: authorize,
// refuse, and later cancel.

var recStatusWords = map[string]string{apipix.RecCreated: "aguardando sua resposta", apipix.RecApproved: "autorizada",
	apipix.RecRejected: "recusada", apipix.RecExpired: "expirada", apipix.RecCanceled: "cancelada"}

var periodicityWords = map[string]string{"SEMANAL": "Semanal", "MENSAL": "Mensal", "TRIMESTRAL": "Trimestral",
	"SEMESTRAL": "Semestral", "ANUAL": "Anual"}

var bankRecTemplate = template.Must(template.New("rec").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Banco de testes · Pix Automático</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1f2937}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}dt{color:#4b5563}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
button{margin:.5rem .5rem 0 0;padding:.6rem 1.2rem;border:0;border-radius:.4rem;font-size:1rem;color:#fff;background:#059669}
button.no{background:#b91c1c}li{margin:.6rem 0}a{color:#065f46}
.ok{background:#ecfdf5;border:1px solid #059669;padding:1rem;border-radius:.4rem}.err{background:#fef2f2;border:1px solid #dc2626;padding:1rem;border-radius:.4rem}</style></head>
<body><p><a href="/payer">Banco de testes</a> · <a href="/payer/recs">Pix Automático</a></p>
{{if .Message}}<p class="ok" role="status" data-testid="message">{{.Message}}</p>{{end}}
{{if .Error}}<p class="err" role="alert" data-testid="error">{{.Error}}</p>{{end}}
{{with .Rec}}
<h1>Autorização de Pix Automático</h1>
<p data-testid="status">Situação: <strong>{{.Status}}</strong></p>
<dl>
<dt>Recebedor</dt><dd data-testid="receiver">{{.Receiver}}</dd>
<dt>Contrato</dt><dd>{{.Contract}}</dd>
{{if .Object}}<dt>Objeto</dt><dd>{{.Object}}</dd>{{end}}
<dt>Valor</dt><dd data-testid="amount">{{.Amount}}</dd>
<dt>Periodicidade</dt><dd data-testid="periodicity">{{.Periodicity}}</dd>
<dt>Início</dt><dd>{{.Start}}</dd>
<dt>Fim</dt><dd>{{.End}}</dd>
<dt>Novas tentativas</dt><dd>{{.Retries}}</dd>
{{if .FirstPayment}}<dt>Primeiro pagamento</dt><dd data-testid="first-payment">{{.FirstPayment}}, agora</dd>{{end}}
</dl>
{{if .Pending}}<form method="post" action="/payer/recs/{{.ID}}">
<button type="submit" name="action" value="approve" data-testid="approve">{{if .FirstPayment}}Autorizar e pagar{{else}}Autorizar{{end}}</button>
<button type="submit" name="action" value="reject" class="no" data-testid="reject">Recusar</button></form>{{end}}
{{if .Active}}<form method="post" action="/payer/recs/{{.ID}}" onsubmit="return confirm('Cancelar esta autorização? Nenhum novo débito será feito.')">
<p>Você pode cancelar esta autorização a qualquer momento; os débitos agendados são cancelados com ela.</p>
<button type="submit" name="action" value="cancel" class="no" data-testid="cancel">Cancelar autorização</button></form>{{end}}
{{else}}
<h1>Pix Automático</h1>
{{if .List}}<ul>{{range .List}}<li><a href="/payer/recs/{{.ID}}">{{.Receiver}}: {{.Amount}}, {{.Periodicity}}</a> ({{.Status}})</li>{{end}}</ul>
{{else}}<p>Nenhuma autorização ainda. Leia o QR de Pix Automático de uma assinatura em <a href="/payer">Banco de testes</a>.</p>{{end}}
{{end}}</body></html>`))

type bankRecView struct {
	Message, Error string
	Rec            *recView
	List           []recView
}

type recView struct {
	ID, Status, Receiver, Contract, Object, Amount, Periodicity, Start, End, Retries, FirstPayment string
	Pending, Active                                                                                bool
}

// view is the recurrence as the payer's bank shows it; the caller holds the lock.
func (sb *sandbox) view(rec *recState) recView {
	v := recView{ID: rec.IDRec, Status: recStatusWords[rec.Status], Receiver: sb.name, Contract: rec.Vinculo.Contrato,
		Object: rec.Vinculo.Objeto, Periodicity: periodicityWords[rec.Calendario.Periodicidade],
		Start: brDate(rec.Calendario.DataInicial), End: "Sem data de fim", Retries: "Não permitidas",
		Pending: rec.Status == apipix.RecCreated, Active: rec.Status == apipix.RecApproved, Amount: "Variável, definido a cada cobrança"}
	if rec.Calendario.DataFinal != "" {
		v.End = brDate(rec.Calendario.DataFinal)
	}
	if rec.PoliticaRetentativa == apipix.RetryThreeIn7 {
		v.Retries = "Até 3, nos 7 dias após o vencimento"
	}
	if rec.Valor != nil && rec.Valor.ValorRec != "" {
		cents, _ := apipix.ParseValor(rec.Valor.ValorRec)
		v.Amount = pix.FormatBRL(cents) + " por cobrança"
	}
	if rec.Ativacao != nil && rec.Ativacao.DadosJornada != nil {
		if c, ok := sb.st.cobs[rec.Ativacao.DadosJornada.TxID]; ok {
			cents, _ := apipix.ParseValor(c.Valor.Original)
			v.FirstPayment = pix.FormatBRL(cents)
		}
	}
	return v
}

func brDate(iso string) string {
	d, err := calendar.ParseDate(iso)
	if err != nil {
		return iso
	}
	return d.Time().Format("02/01/2006")
}

func (sb *sandbox) renderRec(w http.ResponseWriter, status int, v bankRecView) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = bankRecTemplate.Execute(w, v)
}

// recsPage handles GET /payer/recs: the payer's authorizations, the
// requests waiting for an answer first.
func (sb *sandbox) recsPage(w http.ResponseWriter, _ *http.Request) {
	sb.st.mu.Lock()
	var list []recView
	for _, rec := range sb.st.recs {
		if rec.Status == apipix.RecCreated && sb.solicitationOf(rec.IDRec) == nil {
			continue // a QR's recurrence nobody scanned yet
		}
		list = append(list, sb.view(rec))
	}
	sb.st.mu.Unlock()
	slices.SortFunc(list, func(a, b recView) int {
		if a.Pending != b.Pending {
			if a.Pending {
				return -1
			}
			return 1
		}
		return strings.Compare(b.ID, a.ID)
	})
	sb.renderRec(w, http.StatusOK, bankRecView{List: list})
}

// recPage handles GET /payer/recs/{idRec}.
func (sb *sandbox) recPage(w http.ResponseWriter, r *http.Request) {
	sb.st.mu.Lock()
	rec, ok := sb.st.recs[r.PathValue("idRec")]
	var v bankRecView
	if ok {
		view := sb.view(rec)
		v.Rec = &view
	}
	sb.st.mu.Unlock()
	if !ok {
		sb.renderRec(w, http.StatusNotFound, bankRecView{Error: "Autorização não encontrada neste banco."})
		return
	}
	v.Message = map[string]string{"approve": "Autorização concedida.", "reject": "Autorização recusada.",
		"cancel": "Autorização cancelada."}[r.URL.Query().Get("done")]
	sb.renderRec(w, http.StatusOK, v)
}

// recSubmit handles POST /payer/recs/{idRec}: the payer's answer.
func (sb *sandbox) recSubmit(w http.ResponseWriter, r *http.Request) {
	id, action := r.PathValue("idRec"), r.FormValue("action")
	if _, err := sb.answer(id, action); err != nil {
		sb.st.mu.Lock()
		var v bankRecView
		if rec, ok := sb.st.recs[id]; ok {
			view := sb.view(rec)
			v.Rec = &view
		}
		sb.st.mu.Unlock()
		v.Error = err.Error()
		sb.renderRec(w, http.StatusUnprocessableEntity, v)
		return
	}
	http.Redirect(w, r, "/payer/recs/"+url.PathEscape(id)+"?done="+url.QueryEscape(action), http.StatusSeeOther)
}

// recurrenceOf is the recurrence a scanned code carries in field 80, if any.
func (sb *sandbox) recurrenceOf(code string) (string, bool) {
	d, err := pix.Decode(code)
	if err != nil || d.Recurrence["25"] == "" {
		return "", false
	}
	sb.st.mu.Lock()
	defer sb.st.mu.Unlock()
	rec := sb.recByLocation(d.Recurrence["25"])
	if rec == nil {
		return "", false
	}
	return rec.IDRec, true
}
