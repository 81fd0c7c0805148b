package main

import (
	"math/rand/v2"
	"slices"
	"time"
)

// faults are the misbehaviours a test or a demo switches on
// (POST /sandbox/faults), each off by default.
type faults struct {
	// LatencyMS delays every API answer.
	LatencyMS int `json:"latency_ms"`
	// ErrorRate is the share of API calls answered 503 ServicoIndisponivel.
	// With ErrorsAfterProcessing, half of those are answered only after the
	// request took effect: the answer is lost, not the work.
	ErrorRate             float64 `json:"error_rate"`
	ErrorsAfterProcessing bool    `json:"errors_after_processing"`
	// DropCallbacks and DuplicateCallbacks are the shares of callbacks
	// never sent and sent twice.
	DropCallbacks      float64 `json:"drop_callbacks"`
	DuplicateCallbacks float64 `json:"duplicate_callbacks"`
	// DevolucaoDelayMS and PayoutDelayMS are how long a devolução or a
	// payout stays EM_PROCESSAMENTO (100 ms when zero).
	DevolucaoDelayMS int `json:"devolucao_delay_ms"`
	PayoutDelayMS    int `json:"payout_delay_ms"`
	// RefuseDevolucoes makes devoluções end NAO_REALIZADO (the payer's
	// account is gone, say).
	RefuseDevolucoes bool `json:"refuse_devolucoes"`
	// RefusePayoutKeys are PIX keys payouts to which end NAO_REALIZADO.
	RefusePayoutKeys []string `json:"refuse_payout_keys"`
}

func chance(p float64) bool { return p > 0 && rand.Float64() < p }

func (f faults) latency() time.Duration { return time.Duration(f.LatencyMS) * time.Millisecond }

func (f faults) devolucaoDelay() time.Duration {
	return orDelay(f.DevolucaoDelayMS)
}

func (f faults) payoutDelay() time.Duration { return orDelay(f.PayoutDelayMS) }

func orDelay(ms int) time.Duration {
	if ms <= 0 {
		return 100 * time.Millisecond
	}
	return time.Duration(ms) * time.Millisecond
}

func (f faults) refusesPayoutTo(chave string) bool { return slices.Contains(f.RefusePayoutKeys, chave) }

// failure is what an API call suffers: nothing, a 503 before it takes
// effect, or a 503 after.
type failure int

const (
	noFailure failure = iota
	failBefore
	failAfter
)

func (f faults) draw() failure {
	if !chance(f.ErrorRate) {
		return noFailure
	}
	if f.ErrorsAfterProcessing && rand.IntN(2) == 0 {
		return failAfter
	}
	return failBefore
}
