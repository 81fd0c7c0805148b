package apipix

import (
	"context"
	"net/http"
	"net/url"
)

// Pix Automático's resources: the recurrence (rec) a payer authorizes and
// each cycle's charge (cobr), with its retries.

// OAuth2 scopes of Pix Automático.
const (
	ScopeRecWrite  = "rec.write"
	ScopeRecRead   = "rec.read"
	ScopeCobRWrite = "cobr.write"
	ScopeCobRRead  = "cobr.read"
)

// Statuses of a recurrence (RecStatus) and of a recurring charge (CobRStatus).
const (
	RecCreated  = "CRIADA"
	RecApproved = "APROVADA"
	RecRejected = "REJEITADA"
	RecExpired  = "EXPIRADA"
	RecCanceled = "CANCELADA"

	CobRCreated   = "CRIADA"
	CobRActive    = "ATIVA"
	CobRCompleted = "CONCLUIDA"
	CobRExpired   = "EXPIRADA"
	CobRRejected  = "REJEITADA"
	CobRCanceled  = "CANCELADA"
)

// Retry policies (politicaRetentativa).
const (
	RetryNotAllowed = "NAO_PERMITE"
	RetryThreeIn7   = "PERMITE_3R_7D"
)

// RecDevedor is the recurrence's payer: a CPF or a CNPJ, and a name.
type RecDevedor struct {
	CPF  string `json:"cpf,omitempty"`
	CNPJ string `json:"cnpj,omitempty"`
	Nome string `json:"nome"`
}

// RecVinculo is what the payer authorizes: the contract and its object.
type RecVinculo struct {
	Objeto   string     `json:"objeto,omitempty"`
	Devedor  RecDevedor `json:"devedor"`
	Contrato string     `json:"contrato"`
}

// RecCalendario is the recurrence's dates and periodicity (SEMANAL,
// MENSAL, TRIMESTRAL, SEMESTRAL, ANUAL).
type RecCalendario struct {
	DataInicial   string `json:"dataInicial"`
	DataFinal     string `json:"dataFinal,omitempty"`
	Periodicidade string `json:"periodicidade"`
}

// RecValor is a fixed amount (valorRec), or none for variable amounts.
type RecValor struct {
	ValorRec             string `json:"valorRec,omitempty"`
	ValorMinimoRecebedor string `json:"valorMinimoRecebedor,omitempty"`
}

// RecAtivacao is how the payer authorized it: the journey and, for
// JORNADA_3, the charge the QR paid.
type RecAtivacao struct {
	TipoJornada  string           `json:"tipoJornada,omitempty"`
	DadosJornada *RecDadosJornada `json:"dadosJornada,omitempty"`
}

// RecDadosJornada names the immediate charge of JORNADA_3.
type RecDadosJornada struct {
	TxID string `json:"txid"`
}

// RecRequest creates a recurrence: POST /rec.
type RecRequest struct {
	Vinculo             RecVinculo    `json:"vinculo"`
	Calendario          RecCalendario `json:"calendario"`
	Valor               *RecValor     `json:"valor,omitempty"`
	PoliticaRetentativa string        `json:"politicaRetentativa"`
	Ativacao            *RecAtivacao  `json:"ativacao,omitempty"`
}

// RecRevision revises a recurrence: PATCH /rec/{idRec} (status CANCELADA cancels it).
type RecRevision struct {
	Status string `json:"status,omitempty"`
}

// StatusAt is one status a resource took, and when.
type StatusAt struct {
	Status string `json:"status"`
	Data   string `json:"data"`
}

// RecEncerramento is why a recurrence ended: rejected or canceled.
type RecEncerramento struct {
	Rejeicao     *RecMotivo `json:"rejeicao,omitempty"`
	Cancelamento *RecMotivo `json:"cancelamento,omitempty"`
}

// RecMotivo is a rejection's or a cancellation's code and words (and who
// asked, for a cancellation: PSP_PAGADOR, USUARIO_PAGADOR, PSP_RECEBEDOR,
// USUARIO_RECEBEDOR).
type RecMotivo struct {
	Solicitante string `json:"solicitante,omitempty"`
	Codigo      string `json:"codigo"`
	Descricao   string `json:"descricao"`
}

// Rec is a recurrence as the PSP holds it (RecCompleta).
type Rec struct {
	IDRec               string           `json:"idRec"`
	Vinculo             RecVinculo       `json:"vinculo"`
	Calendario          RecCalendario    `json:"calendario"`
	Valor               *RecValor        `json:"valor,omitempty"`
	PoliticaRetentativa string           `json:"politicaRetentativa"`
	Status              string           `json:"status"`
	Atualizacao         []StatusAt       `json:"atualizacao"`
	Encerramento        *RecEncerramento `json:"encerramento,omitempty"`
	Ativacao            *RecAtivacao     `json:"ativacao,omitempty"`
}

// CobRRecebedor is the receiver's account a recurring charge pays into.
type CobRRecebedor struct {
	Agencia   string `json:"agencia,omitempty"`
	Conta     string `json:"conta"`
	TipoConta string `json:"tipoConta"`
}

// CobRCalendario is a recurring charge's due date (and, as the PSP
// answers, its creation day).
type CobRCalendario struct {
	DataDeVencimento string `json:"dataDeVencimento"`
	Criacao          string `json:"criacao,omitempty"`
}

// CobRRequest creates a cycle's charge: PUT /cobr/{txid}.
type CobRRequest struct {
	IDRec         string         `json:"idRec"`
	InfoAdicional string         `json:"infoAdicional,omitempty"`
	Calendario    CobRCalendario `json:"calendario"`
	Valor         Valor          `json:"valor"`
	AjusteDiaUtil bool           `json:"ajusteDiaUtil"`
	Recebedor     CobRRecebedor  `json:"recebedor"`
}

// CobRTentativa is one attempt at debiting a recurring charge (tipo AGND:
// scheduled, NTAG: not scheduled, RIFL: a retry).
type CobRTentativa struct {
	DataLiquidacao string     `json:"dataLiquidacao"`
	Tipo           string     `json:"tipo"`
	Status         string     `json:"status"`
	EndToEndID     string     `json:"endToEndId"`
	Atualizacao    []StatusAt `json:"atualizacao"`
	Rejeicao       *RecMotivo `json:"rejeicao,omitempty"`
}

// CobR is a recurring charge as the PSP holds it (CobRCompleta).
type CobR struct {
	IDRec               string          `json:"idRec"`
	TxID                string          `json:"txid"`
	Status              string          `json:"status"`
	Calendario          CobRCalendario  `json:"calendario"`
	Valor               Valor           `json:"valor"`
	AjusteDiaUtil       bool            `json:"ajusteDiaUtil"`
	PoliticaRetentativa string          `json:"politicaRetentativa,omitempty"`
	Atualizacao         []StatusAt      `json:"atualizacao,omitempty"`
	Tentativas          []CobRTentativa `json:"tentativas,omitempty"`
	Pix                 []Pix           `json:"pix,omitempty"`
}

// PostRec creates a recurrence; the PSP names it (idRec).
func (c *Client) PostRec(ctx context.Context, req RecRequest) (*Rec, error) {
	var out Rec
	return &out, c.do(ctx, http.MethodPost, c.api("/rec"), ScopeRecWrite, req, &out, "post rec")
}

// GetRec reads the recurrence idRec.
func (c *Client) GetRec(ctx context.Context, idRec string) (*Rec, error) {
	var out Rec
	return &out, c.do(ctx, http.MethodGet, c.api("/rec/"+url.PathEscape(idRec)), ScopeRecRead, nil, &out, "get rec")
}

// PatchRec revises the recurrence idRec (status CANCELADA cancels it).
func (c *Client) PatchRec(ctx context.Context, idRec string, rev RecRevision) (*Rec, error) {
	var out Rec
	return &out, c.do(ctx, http.MethodPatch, c.api("/rec/"+url.PathEscape(idRec)), ScopeRecWrite, rev, &out, "patch rec")
}

// PutCobR creates the recurring charge txid of a cycle.
func (c *Client) PutCobR(ctx context.Context, txid string, req CobRRequest) (*CobR, error) {
	var out CobR
	return &out, c.do(ctx, http.MethodPut, c.api("/cobr/"+url.PathEscape(txid)), ScopeCobRWrite, req, &out, "put cobr")
}

// GetCobR reads the recurring charge txid.
func (c *Client) GetCobR(ctx context.Context, txid string) (*CobR, error) {
	var out CobR
	return &out, c.do(ctx, http.MethodGet, c.api("/cobr/"+url.PathEscape(txid)), ScopeCobRRead, nil, &out, "get cobr")
}

// PatchCobR revises the recurring charge txid (status CANCELADA cancels it).
func (c *Client) PatchCobR(ctx context.Context, txid string, rev CobRevision) (*CobR, error) {
	var out CobR
	return &out, c.do(ctx, http.MethodPatch, c.api("/cobr/"+url.PathEscape(txid)), ScopeCobRWrite, rev, &out, "patch cobr")
}

// RetryCobR asks for another attempt at the recurring charge txid on date
// (YYYY-MM-DD): POST /cobr/{txid}/retentativa/{data}.
func (c *Client) RetryCobR(ctx context.Context, txid, date string) (*CobR, error) {
	var out CobR
	return &out, c.do(ctx, http.MethodPost, c.api("/cobr/"+url.PathEscape(txid)+"/retentativa/"+url.PathEscape(date)),
		ScopeCobRWrite, nil, &out, "retry cobr")
}
