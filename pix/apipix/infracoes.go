package apipix

import (
	"context"
	"net/http"
	"net/url"
)

// MED 2.0: API Pix has no infrações (the DICT's MED is between
// institutions), so the service reads its PSP's, modelled on Efí's
// (GET /v2/gn/infracoes, POST /v2/gn/infracoes/{idInfracao}/defesa): an
// infração a payer's bank reported on a Pix received, its deadlines, the
// merchant's defesa and the decision. The PSP calls back at the webhook's
// "/infracoes" when one opens or moves on.

// Scopes of the infrações.
const (
	ScopeInfracaoRead  = "gn.infracoes.read"
	ScopeInfracaoWrite = "gn.infracoes.write"
)

// Grounds of an infração (MED 2.0).
const (
	MotivoFraude           = "fraude"
	MotivoCoacao           = "coacao"
	MotivoFalhaOperacional = "falha_operacional"
)

// Where an infração stands, and what was decided.
const (
	InfracaoBloqueada = "BLOQUEADA"  // the money blocked; the receiver may answer
	InfracaoEmAnalise = "EM_ANALISE" // the institutions analyse
	InfracaoDecidida  = "DECIDIDA"   // decided: Resultado says how

	ResultadoDevolver = "DEVOLVER" // the money goes back to the payer
	ResultadoManter   = "MANTER"   // the receiver keeps it
)

// Infracao is an infração as the PSP reports it.
type Infracao struct {
	IDInfracao string `json:"idInfracao"`
	EndToEndID string `json:"endToEndId"`
	Motivo     string `json:"motivo"`
	// Valor is what the payer's bank claims; ValorBloqueado what the PSP
	// blocked of it.
	Valor          string          `json:"valor"`
	ValorBloqueado string          `json:"valorBloqueado"`
	Situacao       string          `json:"situacao"`
	Resultado      string          `json:"resultado,omitempty"`
	Criacao        string          `json:"criacao"`
	PrazoDefesa    string          `json:"prazoDefesa"`
	PrazoAnalise   string          `json:"prazoAnalise"`
	PrazoDevolucao string          `json:"prazoDevolucao"`
	Defesa         *DefesaRecebida `json:"defesa,omitempty"`
}

// DefesaRequest is the receiver's answer: its account and its files.
type DefesaRequest struct {
	Justificativa string  `json:"justificativa"`
	Anexos        []Anexo `json:"anexos"`
}

// Anexo is one file of a defesa: its name, type and bytes (base64).
type Anexo struct {
	Nome     string `json:"nome"`
	Tipo     string `json:"tipo"`
	Conteudo string `json:"conteudo"`
}

// DefesaRecebida is a defesa as the PSP keeps it.
type DefesaRecebida struct {
	Justificativa string         `json:"justificativa"`
	Anexos        []AnexoMantido `json:"anexos"`
	Horario       string         `json:"horario"`
}

// AnexoMantido is a file the PSP keeps, without its bytes.
type AnexoMantido struct {
	Nome    string `json:"nome"`
	Tipo    string `json:"tipo"`
	Tamanho int    `json:"tamanho"`
}

// InfracoesCallback is what the PSP posts to the webhook + "/infracoes".
type InfracoesCallback struct {
	Infracoes []InfracaoNotification `json:"infracoes"`
}

// InfracaoNotification says an infração opened or moved on: read it.
type InfracaoNotification struct {
	IDInfracao string `json:"idInfracao"`
	Situacao   string `json:"situacao"`
}

// GetInfracao reads the infração id.
func (c *Client) GetInfracao(ctx context.Context, id string) (*Infracao, error) {
	var out Infracao
	return &out, c.do(ctx, http.MethodGet, c.payout("/v2/gn/infracoes/"+url.PathEscape(id)), ScopeInfracaoRead, nil, &out, "get infracao")
}

// PostDefesa sends the receiver's defesa of the infração id; the same
// defesa again changes nothing.
func (c *Client) PostDefesa(ctx context.Context, id string, req DefesaRequest) (*Infracao, error) {
	var out Infracao
	return &out, c.do(ctx, http.MethodPost, c.payout("/v2/gn/infracoes/"+url.PathEscape(id)+"/defesa"), ScopeInfracaoWrite, req, &out,
		"post defesa")
}

// MED 2.0 for money sent: the payer's PSP asks the receiving institution
// to block and return a Pix its client was defrauded or coerced into
// (PUT /v2/gn/med/{idSolicitacao}, idempotent by its id), and follows it
// (GET, and a callback at the webhook + "/med").

// Where a request for a return stands.
const (
	MEDEmAnalise             = "EM_ANALISE"
	MEDDevolvida             = "DEVOLVIDA"
	MEDParcialmenteDevolvida = "PARCIALMENTE_DEVOLVIDA"
	MEDRecusada              = "RECUSADA"
)

// MEDRequest asks for a Pix sent to be returned.
type MEDRequest struct {
	EndToEndID string `json:"endToEndId"`
	Motivo     string `json:"motivo"`
	Descricao  string `json:"descricao"`
}

// MEDSolicitacao is a request for a return as the PSP keeps it: once
// decided, what came back (ValorDevolvido, credited to the account).
type MEDSolicitacao struct {
	IDSolicitacao  string `json:"idSolicitacao"`
	EndToEndID     string `json:"endToEndId"`
	Motivo         string `json:"motivo"`
	Descricao      string `json:"descricao"`
	Valor          string `json:"valor"`
	Situacao       string `json:"situacao"`
	ValorDevolvido string `json:"valorDevolvido,omitempty"`
	Criacao        string `json:"criacao"`
	Conclusao      string `json:"conclusao,omitempty"`
}

// MEDCallback is what the PSP posts to the webhook + "/med".
type MEDCallback struct {
	MED []MEDNotification `json:"med"`
}

// MEDNotification says a request for a return moved on: read it.
type MEDNotification struct {
	IDSolicitacao string `json:"idSolicitacao"`
	Situacao      string `json:"situacao"`
}

// PutMED asks for the return of a Pix sent; the same id again is the same
// request.
func (c *Client) PutMED(ctx context.Context, id string, req MEDRequest) (*MEDSolicitacao, error) {
	var out MEDSolicitacao
	return &out, c.do(ctx, http.MethodPut, c.payout("/v2/gn/med/"+url.PathEscape(id)), ScopeInfracaoWrite, req, &out, "put med")
}

// GetMED reads the request for a return id.
func (c *Client) GetMED(ctx context.Context, id string) (*MEDSolicitacao, error) {
	var out MEDSolicitacao
	return &out, c.do(ctx, http.MethodGet, c.payout("/v2/gn/med/"+url.PathEscape(id)), ScopeInfracaoRead, nil, &out, "get med")
}
