package main

import (
	"crypto/rand"
	"math/big"
	"sort"
	"sync"
	"time"

	"payments/pix/apipix"
)

// state is the sandbox's bank: the receiver's charges, the Pix they
// received and those Pix's devoluções, the registered webhook, and the
// payouts sent. It lives in memory: the sandbox is a test double of a PSP
// for tests and `make run`, and starts empty.
type state struct {
	mu        sync.Mutex
	cobs      map[string]*cob       // by txid
	byLoc     map[string]*cob       // by location id
	cobvs     map[string]*dueCob    // due-date charges by txid
	cobvByLoc map[string]*dueCob    // by location id
	lotes     map[int64]*lote       // batches by id
	recs      map[string]*recState  // recurrences by idRec
	cobrs     map[string]*cobrState // recurring charges by txid
	locrecs   map[int64]*apipix.LocRec
	solicrecs map[string]*apipix.SolicRec // requests for the payer's confirmation, by idSolicRec
	// webhookRec and webhookCobR are where recurrences' and recurring
	// charges' callbacks go ("" while none is registered).
	webhookRec, webhookCobR string
	// balanceShort makes the payer's balance fall short of every debit.
	balanceShort bool
	pix          map[string]*pixIn      // by endToEndId
	webhooks     map[string]string      // chave -> webhookUrl
	payouts      map[string]*payout     // by idEnvio
	infracoes    map[string]*infracao   // MED 2.0's infrações, by idInfracao
	med          map[string]*medRequest // MED 2.0's requests for a return of a Pix sent, by idSolicitacao
	order        []string               // endToEndIds in arrival order, for GET /pix
	counts       map[string]int         // requests that changed something, by kind
	faults       faults
}

type cob struct {
	apipix.Cob
	locID   string
	locSeq  int
	created time.Time
	body    []byte // the PUT's body, to tell a repeat from a conflict
}

type pixIn struct {
	apipix.Pix
	at         time.Time
	devolucoes map[string]*devolucao
}

type devolucao struct {
	apipix.Devolucao
	body []byte
}

type payout struct {
	apipix.Payout
	body  []byte
	chave string
}

func newState() *state {
	return &state{cobs: map[string]*cob{}, byLoc: map[string]*cob{}, cobvs: map[string]*dueCob{}, cobvByLoc: map[string]*dueCob{},
		lotes: map[int64]*lote{}, recs: map[string]*recState{}, cobrs: map[string]*cobrState{}, locrecs: map[int64]*apipix.LocRec{},
		solicrecs: map[string]*apipix.SolicRec{}, pix: map[string]*pixIn{},
		webhooks: map[string]string{}, payouts: map[string]*payout{}, infracoes: map[string]*infracao{}, med: map[string]*medRequest{}, counts: map[string]int{}}
}

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randomAlnum(n int) string {
	out := make([]byte, n)
	for i := range out {
		k, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
		out[i] = alnum[k.Int64()]
	}
	return string(out)
}

// sandboxISPB is the sandbox's 8-digit institution code, in its ids.
const sandboxISPB = "99999999"

// newE2E makes an endToEndId (E, ISPB, yyyyMMddHHmm, 11 characters) or,
// with prefix D, a devolução's rtrId of the same shape.
func newE2E(prefix string, at time.Time) string {
	return prefix + sandboxISPB + at.UTC().Format("200601021504") + randomAlnum(11)
}

// pixList is one page of the Pix received from inicio to fim, as GET /pix
// answers (paginaAtual from 0).
func (s *state) pixList(inicio, fim time.Time, page, perPage int) apipix.PixList {
	s.mu.Lock()
	defer s.mu.Unlock()
	var match []apipix.Pix
	for _, e2e := range s.order {
		p := s.pix[e2e]
		if p.at.Before(inicio) || p.at.After(fim) {
			continue
		}
		match = append(match, p.withDevolucoes())
	}
	var out apipix.PixList
	out.Parametros.Inicio, out.Parametros.Fim = inicio.UTC().Format(time.RFC3339), fim.UTC().Format(time.RFC3339)
	pages := max(1, (len(match)+perPage-1)/perPage)
	out.Parametros.Paginacao = apipix.Paginacao{PaginaAtual: page, ItensPorPagina: perPage,
		QuantidadeDePaginas: pages, QuantidadeTotalDeItens: len(match)}
	start := page * perPage
	if start < len(match) {
		out.Pix = match[start:min(len(match), start+perPage)]
	}
	if out.Pix == nil {
		out.Pix = []apipix.Pix{}
	}
	return out
}

// withDevolucoes is the Pix as API Pix shows it, its devoluções in the
// order they were asked for.
func (p *pixIn) withDevolucoes() apipix.Pix {
	out := p.Pix
	out.Devolucoes = nil
	for _, d := range p.devolucoes {
		out.Devolucoes = append(out.Devolucoes, d.Devolucao)
	}
	sort.Slice(out.Devolucoes, func(i, j int) bool {
		return out.Devolucoes[i].Horario.Solicitacao < out.Devolucoes[j].Horario.Solicitacao
	})
	return out
}
