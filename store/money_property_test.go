package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"payments/pix"
	"payments/store"
	"payments/store/ids"
	"payments/store/storetest"
)

// moneyMachine drives the store's money operations in random order over a
// handful of payments of one account and checks the money model's
// invariants (storetest.MoneyViolations) after every step. Each operation
// must succeed or refuse with one of the documented refusals: any other
// error is what a caller would see as a 500.
type moneyMachine struct {
	st    *store.Store
	scope store.Scope
	// sellers are the platform's subaccounts its charges may split to.
	sellers []store.Scope
	log     []string

	payments    []*store.Payment
	refunds     []string // pending
	disputes    []string // open
	withdrawals []pendingWithdrawal
}

// pendingWithdrawal is a withdrawal of the platform's or a seller's.
type pendingWithdrawal struct {
	id    string
	scope store.Scope
}

// newMoneyMachine is a platform (whose charges the machine makes) with two
// subaccounts its charges may split to.
func newMoneyMachine(t require.TestingT, st *store.Store, livemode bool) *moneyMachine {
	ctx := context.Background()
	acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja", Email: "loja-" + strings.ToLower(pix.RandomBase62(12)) + "@example.com", FeeBPS: 99})
	require.NoError(t, err)
	m := &moneyMachine{st: st, scope: store.Scope{AccountID: acct.ID, Livemode: livemode}}
	for _, name := range []string{"Padaria", "Açougue"} {
		sub, err := st.CreateSubaccount(ctx, acct, store.NewSubaccount{Name: name, Document: "52998224725", Email: "s@example.com", PixKey: "s@example.com"})
		require.NoError(t, err)
		m.sellers = append(m.sellers, store.Scope{AccountID: sub.ID, Livemode: livemode})
	}
	return m
}

// refusals are the documented answers an operation may give instead of
// doing it; each maps to a 4xx.
var refusals = []error{store.ErrInvalidTransition, store.ErrConflict, store.ErrPaymentDisputed, store.ErrRefundTooLarge,
	store.ErrNothingToRefund, store.ErrBalanceInsufficient, store.ErrDisputeAmount}

func (m *moneyMachine) did(t require.TestingT, step string, err error) bool {
	if err == nil {
		m.log = append(m.log, step)
		return true
	}
	for _, r := range refusals {
		if errors.Is(err, r) {
			m.log = append(m.log, step+" (refused: "+strings.TrimPrefix(r.Error(), "store: ")+")")
			return false
		}
	}
	require.NoError(t, err, "%s: not a documented refusal, after %q", step, m.log)
	return false
}

func (m *moneyMachine) Create(t require.TestingT, amount int64) { m.CreateSplit(t, amount, nil) }

// CreateSplit makes a charge of amount with splits to the sellers.
func (m *moneyMachine) CreateSplit(t require.TestingT, amount int64, splits []store.Split) {
	ctx := context.Background()
	now := m.st.Now()
	acct, err := m.st.Account(ctx, m.scope.AccountID)
	require.NoError(t, err)
	p := &store.Payment{
		AccountID: m.scope.AccountID, Livemode: m.scope.Livemode, Status: store.StatusPending, AmountCents: amount,
		Currency: "BRL", PaymentMethod: "pix", CorrelationID: pix.NewTxID(), FeeCents: acct.Fee(amount),
		BRCode: "x", QRCodeURL: "http://x/qr.png", CheckoutURL: "http://x/pay", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(3600e9),
		Splits: splits,
	}
	p.ID = ids.NewPayment(now)
	require.NoError(t, m.st.CreatePayment(ctx, p))
	m.payments = append(m.payments, p)
	m.log = append(m.log, fmt.Sprintf("create p%d %d split %s", len(m.payments)-1, amount, describeSplits(splits)))
}

// describeSplits is splits as the log shows them.
func describeSplits(splits []store.Split) string {
	var out []string
	for _, s := range splits {
		switch {
		case s.AmountCents != nil:
			out = append(out, fmt.Sprintf("%s:%d¢:%s", s.Account, *s.AmountCents, s.FeePayer))
		default:
			out = append(out, fmt.Sprintf("%s:%dbps:%s", s.Account, *s.PercentBPS, s.FeePayer))
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

func (m *moneyMachine) Pay(t require.TestingT, i int) {
	p := m.payments[i]
	var err error
	if m.scope.Livemode {
		// A transfer the PSP confirmed.
		err = m.st.RecordPixNotification(context.Background(), &store.PixNotification{
			EndToEndID: "E" + pix.RandomBase62(31), TxID: p.CorrelationID, AmountCents: p.AmountCents, Raw: []byte(`{}`)})
	} else {
		_, err = m.st.MarkPaymentPaid(context.Background(), m.scope, p.ID.String(), nil)
	}
	m.did(t, fmt.Sprintf("pay p%d", i), err)
}

// Refund asks for amount back (0: all that is left), pending until settled.
func (m *moneyMachine) Refund(t require.TestingT, i int, amount int64) {
	r, err := m.st.CreateRefund(context.Background(), m.scope, m.payments[i].ID.String(), store.NewRefund{AmountCents: amount})
	if m.did(t, fmt.Sprintf("refund p%d %d", i, amount), err) {
		m.refunds = append(m.refunds, r.ID)
	}
}

// RefundInFull is the one-call refund: in test mode it succeeds at once.
func (m *moneyMachine) RefundInFull(t require.TestingT, i int) {
	_, _, err := m.st.RefundPayment(context.Background(), m.scope, m.payments[i].ID.String(), store.NewRefund{})
	if m.did(t, fmt.Sprintf("refund in full p%d", i), err) && m.scope.Livemode {
		refunds, err := m.st.RefundsForPayment(context.Background(), m.scope, m.payments[i].ID)
		require.NoError(t, err)
		m.refunds = append(m.refunds, refunds[len(refunds)-1].ID)
	}
}

// SettleRefund ends the j-th pending refund.
func (m *moneyMachine) SettleRefund(t require.TestingT, j int, succeeded bool) {
	res := store.RefundResult{Status: store.RefundSucceeded}
	if !succeeded {
		reason := "NAO_REALIZADO"
		res = store.RefundResult{Status: store.RefundFailed, FailureReason: &reason}
	}
	_, _, err := m.st.SettleRefund(context.Background(), &m.scope, m.refunds[j], res)
	m.did(t, fmt.Sprintf("refund #%d %s", j, res.Status), err)
	m.refunds = slices.Delete(m.refunds, j, j+1)
}

// OpenDispute reports payment i as the payer's bank would, claiming
// amount of it (0: all it received); a payment may have several.
func (m *moneyMachine) OpenDispute(t require.TestingT, i int, amount int64) {
	d, err := m.st.OpenDispute(context.Background(), m.scope, m.payments[i].ID.String(), store.DisputeReport{Reason: "fraud", AmountCents: amount})
	if m.did(t, fmt.Sprintf("open dispute p%d claiming %d", i, amount), err) {
		m.disputes = append(m.disputes, d.ID)
	}
}

// CloseDispute ends the j-th open dispute.
func (m *moneyMachine) CloseDispute(t require.TestingT, j int, won bool) {
	status := store.DisputeLost
	if won {
		status = store.DisputeWon
	}
	_, err := m.st.CloseDispute(context.Background(), m.scope, m.disputes[j], status)
	m.did(t, fmt.Sprintf("dispute #%d %s", j, status), err)
	m.disputes = slices.Delete(m.disputes, j, j+1)
}

func (m *moneyMachine) Withdraw(t require.TestingT, amount int64) { m.WithdrawFrom(t, m.scope, amount) }

// WithdrawFrom withdraws amount of scope's (the platform's or a seller's).
func (m *moneyMachine) WithdrawFrom(t require.TestingT, scope store.Scope, amount int64) {
	w := &store.Withdrawal{AccountID: scope.AccountID, Livemode: scope.Livemode, AmountCents: amount, PixKey: "a@example.com", PixKeyType: "email"}
	if m.did(t, fmt.Sprintf("withdraw %d of %s", amount, scope.AccountID), m.st.CreateWithdrawal(context.Background(), w)) {
		m.withdrawals = append(m.withdrawals, pendingWithdrawal{id: w.ID, scope: scope})
	}
}

func (m *moneyMachine) FinishWithdrawal(t require.TestingT, j int, completed bool) {
	res := store.WithdrawalResult{Status: store.WithdrawalCompleted}
	if !completed {
		reason := "rejected"
		res = store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason}
	}
	_, _, err := m.st.FinishWithdrawal(context.Background(), &m.withdrawals[j].scope, m.withdrawals[j].id, res)
	m.did(t, fmt.Sprintf("withdrawal #%d %s", j, res.Status), err)
	m.withdrawals = slices.Delete(m.withdrawals, j, j+1)
}

// Check fails with every broken invariant and the steps that led there.
// Every account's: the platform's and each seller's money model, and what
// the platform's split charges moved between them.
func (m *moneyMachine) Check(t require.TestingT) {
	for _, scope := range append([]store.Scope{m.scope}, m.sellers...) {
		broken, err := storetest.MoneyViolations(context.Background(), m.st.DB(), scope)
		require.NoError(t, err)
		require.Empty(t, broken, "%s, after %q", scope.AccountID, m.log)
	}
	broken, err := storetest.SplitViolations(context.Background(), m.st.DB(), m.scope)
	require.NoError(t, err)
	require.Empty(t, broken, "after %q", m.log)
}

// drawSplits draws up to two splits of a charge of amount, to distinct
// sellers, each a fixed amount or a percent of at most a third of it.
func (m *moneyMachine) drawSplits(t *rapid.T, amount int64) []store.Split {
	if amount < 30 {
		return nil
	}
	n := rapid.IntRange(0, len(m.sellers)).Draw(t, "splits")
	out := make([]store.Split, n)
	for i := range n {
		s := store.Split{Account: m.sellers[i].AccountID, FeePayer: rapid.SampledFrom(store.FeePayers).Draw(t, "fee payer")}
		if rapid.Bool().Draw(t, "fixed") {
			cents := rapid.Int64Range(1, amount/3).Draw(t, "split cents")
			s.AmountCents = &cents
		} else {
			bps := rapid.Int64Range(1, 3_333).Draw(t, "split bps")
			s.PercentBPS = &bps
		}
		out[i] = s
	}
	return out
}

// actions draws each step's arguments and runs it.
func (m *moneyMachine) actions() map[string]func(*rapid.T) {
	payment := func(t *rapid.T) int { return rapid.IntRange(0, len(m.payments)-1).Draw(t, "payment") }
	needPayments := func(t *rapid.T) {
		if len(m.payments) == 0 {
			t.Skip("no payment yet")
		}
	}
	return map[string]func(*rapid.T){
		"create": func(t *rapid.T) {
			if len(m.payments) >= 4 {
				t.Skip("enough payments")
			}
			amount := rapid.Int64Range(1, 20_000).Draw(t, "amount")
			m.CreateSplit(t, amount, m.drawSplits(t, amount))
		},
		"pay": func(t *rapid.T) { needPayments(t); m.Pay(t, payment(t)) },
		"refund": func(t *rapid.T) {
			needPayments(t)
			i := payment(t)
			m.Refund(t, i, rapid.Int64Range(0, m.payments[i].AmountCents+1).Draw(t, "amount"))
		},
		"refund in full": func(t *rapid.T) { needPayments(t); m.RefundInFull(t, payment(t)) },
		"settle refund": func(t *rapid.T) {
			if len(m.refunds) == 0 {
				t.Skip("no pending refund")
			}
			m.SettleRefund(t, rapid.IntRange(0, len(m.refunds)-1).Draw(t, "refund"), rapid.Bool().Draw(t, "succeeded"))
		},
		"open dispute": func(t *rapid.T) {
			needPayments(t)
			i := payment(t)
			m.OpenDispute(t, i, rapid.Int64Range(0, m.payments[i].AmountCents+1).Draw(t, "claimed"))
		},
		"close dispute": func(t *rapid.T) {
			if len(m.disputes) == 0 {
				t.Skip("no open dispute")
			}
			m.CloseDispute(t, rapid.IntRange(0, len(m.disputes)-1).Draw(t, "dispute"), rapid.Bool().Draw(t, "won"))
		},
		"withdraw": func(t *rapid.T) { m.Withdraw(t, rapid.Int64Range(1, 30_000).Draw(t, "amount")) },
		"seller withdraws": func(t *rapid.T) {
			seller := m.sellers[rapid.IntRange(0, len(m.sellers)-1).Draw(t, "seller")]
			m.WithdrawFrom(t, seller, rapid.Int64Range(1, 10_000).Draw(t, "amount"))
		},
		"finish withdrawal": func(t *rapid.T) {
			if len(m.withdrawals) == 0 {
				t.Skip("no pending withdrawal")
			}
			m.FinishWithdrawal(t, rapid.IntRange(0, len(m.withdrawals)-1).Draw(t, "withdrawal"), rapid.Bool().Draw(t, "completed"))
		},
		"": func(t *rapid.T) { m.Check(t) },
	}
}

// TestMoneyModelHoldsUnderRandomSequences is the money model's property
// test: rapid's sequences (100 by default, about 30 steps each) of every
// money operation, each on a fresh account of one database, in test mode
// and in live mode (payments paid by the PSP's transfers, refunds pending
// until their devolução ends), shrunk to a minimal sequence on failure.
// cmd/payments's TestLiveMoneyModelHoldsAgainstThePSP runs the same
// operations through the API against the PSP sandbox.
func TestMoneyModelHoldsUnderRandomSequences(t *testing.T) {
	t.Parallel()
	for _, livemode := range []bool{false, true} {
		t.Run(map[bool]string{false: "test", true: "live"}[livemode], func(t *testing.T) {
			t.Parallel()
			st := newMoneyFixture(t).st
			rapid.Check(t, func(t *rapid.T) {
				m := newMoneyMachine(t, st, livemode)
				t.Repeat(m.actions())
			})
		})
	}
}

// The property test's first findings, kept as the minimal sequences it
// shrank them to.
func TestMoneyModelRegressions(t *testing.T) {
	t.Parallel()
	st := newMoneyFixture(t).st
	for _, tc := range []struct {
		name     string
		livemode bool
		steps    func(t *testing.T, m *moneyMachine)
	}{
		{"a lost dispute after a partial refund returns only what is left", false, func(t *testing.T, m *moneyMachine) {
			m.Create(t, 10_000)
			m.Pay(t, 0)
			m.Refund(t, 0, 4_000)
			m.SettleRefund(t, 0, true)
			m.Check(t)
			m.OpenDispute(t, 0, 0)
			m.Check(t)
			m.CloseDispute(t, 0, false)
		}},
		{"a dispute lost after a full refund pending at its opening succeeded", true, func(t *testing.T, m *moneyMachine) {
			m.Create(t, 10_000)
			m.Pay(t, 0)
			m.Refund(t, 0, 0)
			m.OpenDispute(t, 0, 0)
			m.Check(t)
			m.SettleRefund(t, 0, true)
			m.Check(t)
			m.CloseDispute(t, 0, false)
		}},
		{"two disputes on one payment hold what each claims of what is left, and a failed refund joins the one with room", true,
			func(t *testing.T, m *moneyMachine) {
				m.Create(t, 10_000)
				m.Pay(t, 0)
				m.Refund(t, 0, 3_000)
				m.OpenDispute(t, 0, 4_000)
				m.OpenDispute(t, 0, 0)
				m.Check(t)
				m.SettleRefund(t, 0, false)
				m.Check(t)
				m.CloseDispute(t, 1, false)
				m.Check(t)
				m.CloseDispute(t, 0, true)
			}},
		{"a refund failing while a dispute is open joins the hold", true, func(t *testing.T, m *moneyMachine) {
			m.Create(t, 10_000)
			m.Pay(t, 0)
			m.Refund(t, 0, 3_000)
			m.OpenDispute(t, 0, 0)
			m.SettleRefund(t, 0, false)
			m.Check(t)
			m.CloseDispute(t, 0, false)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMoneyMachine(t, st, tc.livemode)
			tc.steps(t, m)
			m.Check(t)
			require.Empty(t, m.refunds, "every refund ended")
			for _, step := range m.log {
				require.NotContains(t, step, "refused", "every step was done: %q", m.log)
			}
		})
	}
}
