package apipix

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Pix Automático's resources: the recurrence (rec) a payer authorizes and
// each cycle's charge (cobr), with its retries.

// OAuth2 scopes of Pix Automático.
const (
	ScopeRecWrite  = "rec.write"
	ScopeRecRead   = "rec.read"
	ScopeCobRWrite = "cobr.write"
	ScopeCobRRead  = "cobr.read"

	ScopeSolicRecWrite    = "solicrec.write"
	ScopeSolicRecRead     = "solicrec.read"
	ScopeLocRecWrite      = "payloadlocationrec.write"
	ScopeLocRecRead       = "payloadlocationrec.read"
	ScopeWebhookRecWrite  = "webhookrec.write"
	ScopeWebhookCobRWrite = "webhookcobr.write"
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
	// Loc is the location (POST /locrec) whose QR carries the recurrence.
	Loc *int64 `json:"loc,omitempty"`
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
	Loc                 *LocRec          `json:"loc,omitempty"`
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
	// Recebedor is the receiver's account; nil: the one the PSP holds for it.
	Recebedor *CobRRecebedor `json:"recebedor,omitempty"`
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

// LocRec is a recurrence's location: the address a Pix Automático QR
// carries (field 80), which the payer's bank reads the recurrence from.
type LocRec struct {
	ID       int64  `json:"id"`
	Location string `json:"location"`
	Criacao  string `json:"criacao,omitempty"`
	IDRec    string `json:"idRec,omitempty"`
}

// PostLocRec creates a recurrence's location.
func (c *Client) PostLocRec(ctx context.Context) (*LocRec, error) {
	var out LocRec
	return &out, c.do(ctx, http.MethodPost, c.api("/locrec"), ScopeLocRecWrite, nil, &out, "post locrec")
}

// GetLocRec reads the location id, with the recurrence it carries (if any).
func (c *Client) GetLocRec(ctx context.Context, id int64) (*LocRec, error) {
	var out LocRec
	return &out, c.do(ctx, http.MethodGet, c.api("/locrec/"+strconv.FormatInt(id, 10)), ScopeLocRecRead, nil, &out, "get locrec")
}

// Statuses of a request for the payer's confirmation (solicrec).
const (
	SolicRecCreated  = "CRIADA"
	SolicRecSent     = "ENVIADA"
	SolicRecReceived = "RECEBIDA"
	SolicRecRejected = "REJEITADA"
	SolicRecAccepted = "ACEITA"
	SolicRecExpired  = "EXPIRADA"
	SolicRecCanceled = "CANCELADA"
)

// SolicRecDestinatario is the payer's account the request is pushed to: its
// participant (ISPB), branch and number, and the payer's CPF or CNPJ.
type SolicRecDestinatario struct {
	Agencia          string `json:"agencia,omitempty"`
	Conta            string `json:"conta"`
	ISPBParticipante string `json:"ispbParticipante"`
	CPF              string `json:"cpf,omitempty"`
	CNPJ             string `json:"cnpj,omitempty"`
}

// SolicRecCalendario bounds how long the payer has to answer.
type SolicRecCalendario struct {
	DataExpiracaoSolicitacao string `json:"dataExpiracaoSolicitacao"`
}

// SolicRecRequest asks the payer's bank to confirm a recurrence: POST /solicrec.
type SolicRecRequest struct {
	IDRec        string               `json:"idRec"`
	Calendario   SolicRecCalendario   `json:"calendario"`
	Destinatario SolicRecDestinatario `json:"destinatario"`
}

// SolicRec is such a request as the PSP holds it (SolicRecCompleta).
type SolicRec struct {
	IDSolicRec   string               `json:"idSolicRec"`
	IDRec        string               `json:"idRec"`
	Calendario   SolicRecCalendario   `json:"calendario"`
	Status       string               `json:"status"`
	Destinatario SolicRecDestinatario `json:"destinatario"`
	Atualizacao  []StatusAt           `json:"atualizacao"`
}

// SolicRecRevision revises a request: status CANCELADA withdraws it.
type SolicRecRevision struct {
	Status string `json:"status"`
}

// PostSolicRec pushes a request for confirmation to the payer's bank.
func (c *Client) PostSolicRec(ctx context.Context, req SolicRecRequest) (*SolicRec, error) {
	var out SolicRec
	return &out, c.do(ctx, http.MethodPost, c.api("/solicrec"), ScopeSolicRecWrite, req, &out, "post solicrec")
}

// GetSolicRec reads the request idSolicRec.
func (c *Client) GetSolicRec(ctx context.Context, id string) (*SolicRec, error) {
	var out SolicRec
	return &out, c.do(ctx, http.MethodGet, c.api("/solicrec/"+url.PathEscape(id)), ScopeSolicRecRead, nil, &out, "get solicrec")
}

// PatchSolicRec revises the request idSolicRec.
func (c *Client) PatchSolicRec(ctx context.Context, id string, rev SolicRecRevision) (*SolicRec, error) {
	var out SolicRec
	return &out, c.do(ctx, http.MethodPatch, c.api("/solicrec/"+url.PathEscape(id)), ScopeSolicRecWrite, rev, &out, "patch solicrec")
}

// PutWebhookRec registers webhookURL for the recurrences' callbacks (the
// PSP posts to webhookURL + "/rec").
func (c *Client) PutWebhookRec(ctx context.Context, webhookURL string) error {
	return c.do(ctx, http.MethodPut, c.api("/webhookrec"), ScopeWebhookRecWrite, WebhookRequest{WebhookURL: webhookURL}, nil, "put webhookrec")
}

// PutWebhookCobR registers webhookURL for the recurring charges' callbacks
// (the PSP posts to webhookURL + "/cobr").
func (c *Client) PutWebhookCobR(ctx context.Context, webhookURL string) error {
	return c.do(ctx, http.MethodPut, c.api("/webhookcobr"), ScopeWebhookCobRWrite, WebhookRequest{WebhookURL: webhookURL}, nil, "put webhookcobr")
}

// RecCallback is the body of a callback about recurrences: POST
// webhookUrl/rec. Each item is a hint, confirmed with GET /rec/{idRec}.
type RecCallback struct {
	Recs []RecNotification `json:"recs"`
}

// RecNotification names a recurrence whose status changed.
type RecNotification struct {
	IDRec       string     `json:"idRec"`
	Status      string     `json:"status"`
	Atualizacao []StatusAt `json:"atualizacao"`
}

// CobRCallback is the body of a callback about recurring charges: POST
// webhookUrl/cobr. Each item is a hint, confirmed with GET /cobr/{txid}.
type CobRCallback struct {
	CobsR []CobRNotification `json:"cobsr"`
}

// CobRNotification names a recurring charge that changed.
type CobRNotification struct {
	IDRec       string          `json:"idRec"`
	TxID        string          `json:"txid"`
	Status      string          `json:"status"`
	Atualizacao []StatusAt      `json:"atualizacao"`
	Tentativas  []CobRTentativa `json:"tentativas,omitempty"`
}
