package pspcalls_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"payments/pix"
	"payments/pix/apipix"
	"payments/pix/apipix/sandboxtest"
	"payments/store"
	"payments/store/storetest"
	"payments/web/webtest"
)

// TestMain bounds this package's property test: every step of a live
// sequence waits for the PSP, so it runs a few short sequences unless
// -rapid.checks / -rapid.steps (or RAPID_CHECKS / RAPID_STEPS) ask for more.
func TestMain(m *testing.M) {
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, value := range map[string]string{"rapid.checks": "12", "rapid.steps": "24"} {
		env := strings.ToUpper(strings.ReplaceAll(name, ".", "_"))
		if _, inEnv := os.LookupEnv(env); !set[name] && !inEnv {
			_ = flag.Set(name, value)
		}
	}
	os.Exit(m.Run())
}

// liveMoneyMachine drives one live account's money through the API and the
// PSP's dispute notifications, with the sandbox's devoluções delayed and
// refused at random, and checks the money model's invariants after every
// step, while the PSP worker moves the devoluções and payouts underneath.
type liveMoneyMachine struct {
	s     *webtest.Server
	key   string
	scope store.Scope
	log   []string

	paid     []livePayment
	disputes []string // PSP references of open disputes
	faults   sandboxtest.Faults
}

type livePayment struct {
	id, e2e string
	amount  int64
}

// refusedKey is the payout key the sandbox refuses when faults say so.
const refusedKey = "recusada@example.com"

type answer struct {
	status int
	body   map[string]any
}

func (m *liveMoneyMachine) call(t *rapid.T, method, path, token string, body any) answer {
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, m.s.URL+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := m.s.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var a answer
	a.status = res.StatusCode
	_ = json.Unmarshal(b, &a.body)
	if a.status >= 500 {
		t.Fatalf("%s %s %s: %d %s, after %q", method, path, raw, a.status, b, m.log)
	}
	return a
}

// expect fails unless the answer is ok or a 4xx with one of codes.
func (m *liveMoneyMachine) expect(t *rapid.T, step string, a answer, ok int, codes ...string) bool {
	if a.status == ok {
		m.log = append(m.log, step)
		return true
	}
	e, _ := a.body["error"].(map[string]any)
	code, _ := e["code"].(string)
	if !slices.Contains(codes, code) {
		t.Fatalf("%s: %d %v, after %q", step, a.status, a.body, m.log)
	}
	m.log = append(m.log, step+" (refused: "+code+")")
	return false
}

func (m *liveMoneyMachine) createAndPay(t *rapid.T) {
	amount := rapid.Int64Range(100, 20_000).Draw(t, "amount")
	a := m.call(t, "POST", "/api/v1/payments", m.key, map[string]any{"amount_cents": amount})
	m.expect(t, fmt.Sprintf("create %d", amount), a, http.StatusCreated)
	id := a.body["id"].(string)
	pixPaid := m.s.PSP.Pay(a.body["correlation_id"].(string))
	deadline := time.Now().Add(15 * time.Second)
	for m.call(t, "GET", "/api/v1/payments/"+id, m.key, nil).body["status"] != "paid" {
		if time.Now().After(deadline) {
			t.Fatalf("payment %s never became paid", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.paid = append(m.paid, livePayment{id: id, e2e: pixPaid.EndToEndID, amount: amount})
	m.log = append(m.log, fmt.Sprintf("pay p%d", len(m.paid)-1))
}

func (m *liveMoneyMachine) payment(t *rapid.T) (int, livePayment) {
	if len(m.paid) == 0 {
		t.Skip("no payment yet")
	}
	i := rapid.IntRange(0, len(m.paid)-1).Draw(t, "payment")
	return i, m.paid[i]
}

func (m *liveMoneyMachine) refund(t *rapid.T) {
	i, p := m.payment(t)
	body := map[string]any{"payment": p.id}
	amount := rapid.Int64Range(0, 20_000).Draw(t, "amount")
	if amount > 0 {
		body["amount_cents"] = amount
	}
	a := m.call(t, "POST", "/api/v1/refunds", m.key, body)
	m.expect(t, fmt.Sprintf("refund p%d %d", i, amount), a, http.StatusCreated,
		"payment_disputed", "amount_too_large", "payment_not_refundable", "balance_insufficient")
}

func (m *liveMoneyMachine) setFaults(t *rapid.T) {
	m.faults = sandboxtest.Faults{
		RefuseDevolucoes: rapid.Bool().Draw(t, "refuse devolucoes"),
		DevolucaoDelayMS: rapid.SampledFrom([]int{0, 300, 1_500}).Draw(t, "devolucao delay"),
		PayoutDelayMS:    rapid.SampledFrom([]int{0, 500}).Draw(t, "payout delay"),
		RefusePayoutKeys: []string{refusedKey},
	}
	m.s.PSP.SetFaults(m.faults)
	m.log = append(m.log, fmt.Sprintf("faults %+v", m.faults))
}

func (m *liveMoneyMachine) dispute(t *rapid.T, ref, e2e, status string, claimed int64) answer {
	body := map[string]any{"id": ref, "endToEndId": e2e, "reason": "fraud", "status": status}
	if claimed > 0 {
		body["amount_cents"] = claimed
	}
	return m.call(t, "POST", "/psp/disputes", webtest.PSPToken, body)
}

// openDispute reports a payment as the payer's bank would, claiming all
// of it or part (MED 2.0); a payment may have several.
func (m *liveMoneyMachine) openDispute(t *rapid.T) {
	i, p := m.payment(t)
	ref := "MED-" + pix.RandomBase62(12)
	claimed := rapid.Int64Range(0, p.amount).Draw(t, "claimed")
	if m.expect(t, fmt.Sprintf("open dispute p%d claiming %d", i, claimed), m.dispute(t, ref, p.e2e, store.DisputeOpen, claimed), http.StatusOK,
		"payment_invalid_state") {
		m.disputes = append(m.disputes, ref+" "+p.e2e)
	}
}

func (m *liveMoneyMachine) closeDispute(t *rapid.T) {
	if len(m.disputes) == 0 {
		t.Skip("no open dispute")
	}
	j := rapid.IntRange(0, len(m.disputes)-1).Draw(t, "dispute")
	status := rapid.SampledFrom([]string{store.DisputeWon, store.DisputeLost}).Draw(t, "status")
	ref, e2e, _ := strings.Cut(m.disputes[j], " ")
	m.expect(t, fmt.Sprintf("dispute %s %s", ref, status), m.dispute(t, ref, e2e, status, 0), http.StatusOK)
	m.disputes = slices.Delete(m.disputes, j, j+1)
}

func (m *liveMoneyMachine) withdraw(t *rapid.T) {
	amount := rapid.Int64Range(1, 20_000).Draw(t, "amount")
	key := rapid.SampledFrom([]string{"saque@example.com", refusedKey}).Draw(t, "pix key")
	a := m.call(t, "POST", "/api/v1/withdrawals", m.key, map[string]any{"amount_cents": amount, "pix_key": key})
	m.expect(t, fmt.Sprintf("withdraw %d to %s", amount, key), a, http.StatusCreated, "balance_insufficient")
}

// settle lets the PSP worker end every pending refund and withdrawal.
func (m *liveMoneyMachine) settle(t *rapid.T) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var pending int
		err := m.s.DB.NewRaw(`SELECT (SELECT count(*) FROM refunds WHERE account_id = ?0 AND status = 'pending')
			+ (SELECT count(*) FROM withdrawals WHERE account_id = ?0 AND status = 'pending')`, m.scope.AccountID).Scan(context.Background(), &pending)
		if err != nil {
			t.Fatalf("pending: %v", err)
		}
		if pending == 0 {
			m.log = append(m.log, "settled")
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d refunds and withdrawals still pending after 30 s, after %q", pending, m.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (m *liveMoneyMachine) check(t *rapid.T) {
	broken, err := storetest.MoneyViolations(context.Background(), m.s.DB, m.scope)
	if err != nil {
		t.Fatalf("invariants: %v", err)
	}
	if len(broken) > 0 {
		t.Fatalf("money model broken: %q, after %q", broken, m.log)
	}
}

// matchesThePSP checks, once everything settled, that each refund's end is
// the devolução's at the PSP: succeeded ones were DEVOLVIDO for their exact
// amount, failed ones NAO_REALIZADO, and no devolução is left over.
func (m *liveMoneyMachine) matchesThePSP(t *rapid.T) {
	var refunds []store.Refund
	err := m.s.DB.NewSelect().Model(&refunds).Where("account_id = ? AND reason = ?", m.scope.AccountID, store.RefundRequested).
		Scan(context.Background())
	if err != nil {
		t.Fatalf("refunds: %v", err)
	}
	atPSP := map[string]string{}
	for _, d := range m.s.PSP.State().Devolucoes {
		atPSP[d.ID] = d.Status + " " + d.Valor
	}
	for _, r := range refunds {
		want := "DEVOLVIDO " + apipix.FormatValor(r.AmountCents)
		if r.Status == store.RefundFailed {
			want = "NAO_REALIZADO " + apipix.FormatValor(r.AmountCents)
		}
		if got := atPSP[r.DevolucaoID()]; got != want {
			t.Fatalf("refund %s is %s for %d; its devolução at the PSP is %q, after %q", r.ID, r.Status, r.AmountCents, got, m.log)
		}
	}
}

// TestLiveMoneyModelHoldsAgainstThePSP is the money model's property test
// in live mode, end to end: payments paid by the sandbox's payer, refunds
// through the API that become devoluções at the PSP (delayed, refused),
// disputes reported by the PSP, withdrawals paid out or refused, in random
// order (12 sequences of about 24 steps by default), each invariant checked
// after every step and again once the PSP has ended everything.
func TestLiveMoneyModelHoldsAgainstThePSP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	rapid.Check(t, func(t *rapid.T) {
		acct, _, liveKey := s.NewAccount("Loja", "loja-"+strings.ToLower(pix.RandomBase62(12))+"@example.com")
		m := &liveMoneyMachine{s: s, key: liveKey, scope: store.Scope{AccountID: acct.ID, Livemode: true}}
		m.s.PSP.SetFaults(sandboxtest.Faults{RefusePayoutKeys: []string{refusedKey}})
		t.Repeat(map[string]func(*rapid.T){
			"create and pay": func(t *rapid.T) {
				if len(m.paid) >= 3 {
					t.Skip("enough payments")
				}
				m.createAndPay(t)
			},
			"refund":        m.refund,
			"faults":        m.setFaults,
			"open dispute":  m.openDispute,
			"close dispute": m.closeDispute,
			"withdraw":      m.withdraw,
			"settle":        m.settle,
			"":              m.check,
		})
		m.settle(t)
		m.check(t)
		m.matchesThePSP(t)
	})
}
