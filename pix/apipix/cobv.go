package apipix

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// CalendarioV is a due-date charge's time control.
type CalendarioV struct {
	Criacao                string `json:"criacao,omitempty"`
	DataDeVencimento       string `json:"dataDeVencimento,omitempty"`
	ValidadeAposVencimento *int   `json:"validadeAposVencimento,omitempty"`
}

// ModalidadeValor is a fine, interest or abatement: a modality of its
// domain table and its value or percent ("2.00").
type ModalidadeValor struct {
	Modalidade int    `json:"modalidade"`
	ValorPerc  string `json:"valorPerc"`
}

// DescontoDataFixa is a discount up to a date.
type DescontoDataFixa struct {
	Data      string `json:"data"`
	ValorPerc string `json:"valorPerc"`
}

// Desconto is a charge's discounts: fixed dates (modalities 1 and 2) or
// per day early (3 to 6).
type Desconto struct {
	Modalidade       int                `json:"modalidade"`
	ValorPerc        string             `json:"valorPerc,omitempty"`
	DescontoDataFixa []DescontoDataFixa `json:"descontoDataFixa,omitempty"`
}

// ValorV is a due-date charge's amounts (CobVValor).
type ValorV struct {
	Original   string           `json:"original"`
	Multa      *ModalidadeValor `json:"multa,omitempty"`
	Juros      *ModalidadeValor `json:"juros,omitempty"`
	Abatimento *ModalidadeValor `json:"abatimento,omitempty"`
	Desconto   *Desconto        `json:"desconto,omitempty"`
}

// CobVRequest creates or revises a due-date charge: PUT or PATCH /cobv/{txid}.
type CobVRequest struct {
	Calendario         *CalendarioV `json:"calendario,omitempty"`
	Devedor            *Devedor     `json:"devedor,omitempty"`
	Valor              *ValorV      `json:"valor,omitempty"`
	Chave              string       `json:"chave,omitempty"`
	SolicitacaoPagador string       `json:"solicitacaoPagador,omitempty"`
	Status             string       `json:"status,omitempty"`
}

// CobV is a due-date charge as the PSP holds it (CobVGerada, CobVCompleta).
type CobV struct {
	Calendario         CalendarioV `json:"calendario"`
	TxID               string      `json:"txid"`
	Revisao            int         `json:"revisao"`
	Location           string      `json:"location,omitempty"`
	Status             string      `json:"status"`
	Devedor            *Devedor    `json:"devedor,omitempty"`
	Valor              ValorV      `json:"valor"`
	Chave              string      `json:"chave"`
	SolicitacaoPagador string      `json:"solicitacaoPagador,omitempty"`
	PixCopiaECola      string      `json:"pixCopiaECola,omitempty"`
	Pix                []Pix       `json:"pix,omitempty"`
}

// LoteCobVItem is one charge of a batch: its txid and its request.
type LoteCobVItem struct {
	TxID string `json:"txid"`
	CobVRequest
}

// LoteCobVRequest creates a batch of due-date charges: PUT /lotecobv/{id}.
type LoteCobVRequest struct {
	Descricao string         `json:"descricao"`
	CobsV     []LoteCobVItem `json:"cobsv"`
}

// Statuses of a charge's request in a batch.
const (
	LoteProcessing = "EM_PROCESSAMENTO"
	LoteCreated    = "CRIADA"
	LoteRefused    = "NEGADA"
)

// LoteCobVStatus is where one charge of a batch stands.
type LoteCobVStatus struct {
	TxID     string   `json:"txid"`
	Status   string   `json:"status"`
	Problema *Problem `json:"problema,omitempty"`
	Criacao  string   `json:"criacao,omitempty"`
}

// LoteCobV is a batch as GET /lotecobv/{id} answers it (LoteCobVConsultado).
type LoteCobV struct {
	ID        int64            `json:"id"`
	Descricao string           `json:"descricao"`
	Criacao   string           `json:"criacao"`
	CobsV     []LoteCobVStatus `json:"cobsv"`
}

// OAuth2 scopes of due-date charges and their batches.
const (
	ScopeCobVWrite     = "cobv.write"
	ScopeCobVRead      = "cobv.read"
	ScopeLoteCobVWrite = "lotecobv.write"
	ScopeLoteCobVRead  = "lotecobv.read"
)

// PutCobV creates the due-date charge txid.
func (c *Client) PutCobV(ctx context.Context, txid string, req CobVRequest) (*CobV, error) {
	var out CobV
	return &out, c.do(ctx, http.MethodPut, c.api("/cobv/"+url.PathEscape(txid)), ScopeCobVWrite, req, &out, "put cobv")
}

// GetCobV reads the due-date charge txid.
func (c *Client) GetCobV(ctx context.Context, txid string) (*CobV, error) {
	var out CobV
	return &out, c.do(ctx, http.MethodGet, c.api("/cobv/"+url.PathEscape(txid)), ScopeCobVRead, nil, &out, "get cobv")
}

// PatchCobV revises the due-date charge txid (status
// REMOVIDA_PELO_USUARIO_RECEBEDOR removes it).
func (c *Client) PatchCobV(ctx context.Context, txid string, rev CobVRequest) (*CobV, error) {
	var out CobV
	return &out, c.do(ctx, http.MethodPatch, c.api("/cobv/"+url.PathEscape(txid)), ScopeCobVWrite, rev, &out, "patch cobv")
}

// PutLoteCobV asks for the batch id of due-date charges; the PSP answers
// 202 and creates them in the background (GetLoteCobV says how each went).
func (c *Client) PutLoteCobV(ctx context.Context, id int64, req LoteCobVRequest) error {
	return c.do(ctx, http.MethodPut, c.api("/lotecobv/"+strconv.FormatInt(id, 10)), ScopeLoteCobVWrite, req, nil, "put lotecobv")
}

// GetLoteCobV reads the batch id: each charge's status.
func (c *Client) GetLoteCobV(ctx context.Context, id int64) (*LoteCobV, error) {
	var out LoteCobV
	return &out, c.do(ctx, http.MethodGet, c.api("/lotecobv/"+strconv.FormatInt(id, 10)), ScopeLoteCobVRead, nil, &out, "get lotecobv")
}
