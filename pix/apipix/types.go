// Package apipix is a client of the Banco Central's API Pix (v2, the
// standard every Brazilian PSP exposes) for the parts the service uses:
// immediate charges (cob), received Pix and their devoluções, the webhook
// registration, and a payout port modeled on a published PSP API (Efí's Pix
// send), which API Pix does not have. It speaks HTTPS with mutual TLS and
// OAuth2 client credentials (token.go).
package apipix

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Calendario is a charge's time control.
type Calendario struct {
	Criacao   string `json:"criacao,omitempty"`
	Expiracao int64  `json:"expiracao,omitempty"`
}

// Valor is a charge's amount, as API Pix writes money: "123.45".
type Valor struct {
	Original string `json:"original"`
}

// Devedor is whom a charge is addressed to: a CPF or a CNPJ, with a name.
type Devedor struct {
	CPF  string `json:"cpf,omitempty"`
	CNPJ string `json:"cnpj,omitempty"`
	Nome string `json:"nome"`
}

// CobRequest creates a charge: PUT /cob/{txid}.
type CobRequest struct {
	Calendario         Calendario `json:"calendario"`
	Devedor            *Devedor   `json:"devedor,omitempty"`
	Valor              Valor      `json:"valor"`
	Chave              string     `json:"chave"`
	SolicitacaoPagador string     `json:"solicitacaoPagador,omitempty"`
}

// CobRevision revises a charge: PATCH /cob/{txid}. Status
// REMOVIDA_PELO_USUARIO_RECEBEDOR removes it.
type CobRevision struct {
	Status string `json:"status,omitempty"`
}

// Charge statuses (CobrancaStatus).
const (
	CobActive           = "ATIVA"
	CobCompleted        = "CONCLUIDA"
	CobRemovedByUser    = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
	CobRemovedByThePSP  = "REMOVIDA_PELO_PSP"
	DevolucaoProcessing = "EM_PROCESSAMENTO"
	DevolucaoReturned   = "DEVOLVIDO"
	DevolucaoNotDone    = "NAO_REALIZADO"
)

// Cob is a charge as the PSP holds it (CobGerada, CobCompleta).
type Cob struct {
	Calendario         Calendario `json:"calendario"`
	TxID               string     `json:"txid"`
	Revisao            int        `json:"revisao"`
	Location           string     `json:"location,omitempty"`
	Status             string     `json:"status"`
	Devedor            *Devedor   `json:"devedor,omitempty"`
	Valor              Valor      `json:"valor"`
	Chave              string     `json:"chave"`
	SolicitacaoPagador string     `json:"solicitacaoPagador,omitempty"`
	PixCopiaECola      string     `json:"pixCopiaECola,omitempty"`
	Pix                []Pix      `json:"pix,omitempty"`
}

// Pix is a transfer received.
type Pix struct {
	EndToEndID  string      `json:"endToEndId"`
	TxID        string      `json:"txid,omitempty"`
	Valor       string      `json:"valor"`
	Chave       string      `json:"chave,omitempty"`
	Horario     string      `json:"horario"`
	InfoPagador string      `json:"infoPagador,omitempty"`
	Devolucoes  []Devolucao `json:"devolucoes,omitempty"`
}

// DevolucaoRequest asks for a devolução: PUT /pix/{e2eid}/devolucao/{id}.
type DevolucaoRequest struct {
	Valor     string `json:"valor"`
	Natureza  string `json:"natureza,omitempty"`
	Descricao string `json:"descricao,omitempty"`
}

// Horario is when a devolução or a payout was asked for and settled.
type Horario struct {
	Solicitacao string `json:"solicitacao,omitempty"`
	Liquidacao  string `json:"liquidacao,omitempty"`
}

// Devolucao is a devolução: the return of (part of) a Pix to its payer.
type Devolucao struct {
	ID        string  `json:"id"`
	RtrID     string  `json:"rtrId"`
	Valor     string  `json:"valor"`
	Natureza  string  `json:"natureza,omitempty"`
	Descricao string  `json:"descricao,omitempty"`
	Horario   Horario `json:"horario"`
	Status    string  `json:"status"`
	Motivo    string  `json:"motivo,omitempty"`
}

// Paginacao is one page of a list.
type Paginacao struct {
	PaginaAtual            int `json:"paginaAtual"`
	ItensPorPagina         int `json:"itensPorPagina"`
	QuantidadeDePaginas    int `json:"quantidadeDePaginas"`
	QuantidadeTotalDeItens int `json:"quantidadeTotalDeItens"`
}

// PixList is one page of GET /pix.
type PixList struct {
	Parametros struct {
		Inicio    string    `json:"inicio"`
		Fim       string    `json:"fim"`
		Paginacao Paginacao `json:"paginacao"`
	} `json:"parametros"`
	Pix []Pix `json:"pix"`
}

// WebhookRequest registers where the PSP posts (it appends /pix).
type WebhookRequest struct {
	WebhookURL string `json:"webhookUrl"`
}

// Callback is the body the PSP posts to the registered webhookUrl + "/pix":
// received Pix (and devoluções that reached a final status), and, for the
// payout port, payouts that reached one (their IDEnvio set).
type Callback struct {
	Pix []CallbackItem `json:"pix"`
}

// CallbackItem is one notified transfer: a Pix received (EndToEndID,
// TxID, Valor, Devolucoes), or a payout (IDEnvio). Either is a hint, never
// proof: the service confirms it with the PSP before it moves money.
type CallbackItem struct {
	Pix
	// IDEnvio names a payout of the payout port (gnExtras.idEnvio in Efí's API).
	IDEnvio string `json:"idEnvio,omitempty"`
	Status  string `json:"status,omitempty"`
}

// Payout statuses of the payout port.
const (
	PayoutProcessing = "EM_PROCESSAMENTO"
	PayoutDone       = "REALIZADO"
	PayoutNotDone    = "NAO_REALIZADO"
)

// PayoutKey is a PIX key in a payout.
type PayoutKey struct {
	Chave string `json:"chave"`
}

// PayoutRequest sends money from the platform's account to a PIX key: PUT
// /v3/gn/pix/{idEnvio}, idempotent by idEnvio.
type PayoutRequest struct {
	Valor       string    `json:"valor"`
	Pagador     PayoutKey `json:"pagador"`
	Favorecido  PayoutKey `json:"favorecido"`
	InfoPagador string    `json:"infoPagador,omitempty"`
}

// Payout is a payout as the PSP holds it.
type Payout struct {
	IDEnvio string  `json:"idEnvio"`
	E2EID   string  `json:"e2eId"`
	Valor   string  `json:"valor"`
	Horario Horario `json:"horario"`
	Status  string  `json:"status"`
	Motivo  string  `json:"motivo,omitempty"`
}

// Token is the OAuth2 token endpoint's answer.
type Token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope"`
}

// Problem is an API Pix error body (RFC 7807).
type Problem struct {
	Type       string     `json:"type"`
	Title      string     `json:"title"`
	Status     int        `json:"status"`
	Detail     string     `json:"detail,omitempty"`
	Violacoes  []Violacao `json:"violacoes,omitempty"`
	Correlacao string     `json:"correlationId,omitempty"`
}

// Violacao is one rule a request broke.
type Violacao struct {
	Razao       string `json:"razao"`
	Propriedade string `json:"propriedade"`
	Valor       string `json:"valor,omitempty"`
}

// FormatValor writes cents as API Pix writes money: 12345 -> "123.45".
func FormatValor(cents int64) string {
	return strconv.FormatInt(cents/100, 10) + "." + fmt.Sprintf("%02d", cents%100)
}

// ErrValor is a money string that is not n.nn.
var ErrValor = errors.New("apipix: valor must be digits, a point and two digits")

// ParseValor reads "123.45" as 12345 cents.
func ParseValor(s string) (int64, error) {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 2 || whole == "" || len(whole) > 10 || !digits(whole) || !digits(frac) {
		return 0, ErrValor
	}
	reais, _ := strconv.ParseInt(whole, 10, 64)
	cents, _ := strconv.ParseInt(frac, 10, 64)
	return reais*100 + cents, nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
