package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/pix"
	"payments/store"
	"payments/store/ids"
	"payments/store/storetest"
)

// moneyFixture is a store over a fresh database with one account (1% fee).
type moneyFixture struct {
	t     *testing.T
	db    *bun.DB
	st    *store.Store
	scope store.Scope
	acct  *store.Account
}

func newMoneyFixture(t *testing.T) *moneyFixture {
	t.Helper()
	return newFixture(t, false)
}

// newLiveMoneyFixture is a fixture in live mode: only live charges are paid
// by the PSP's transfers, and live refunds wait for their devolução.
func newLiveMoneyFixture(t *testing.T) *moneyFixture {
	t.Helper()
	return newFixture(t, true)
}

func newFixture(t *testing.T, livemode bool) *moneyFixture {
	t.Helper()
	return fixtureOn(t, storetest.DB(t), livemode)
}

// oneConnectionFixture is a fixture whose store has one connection to
// dbURL: every call after the first finds its statements prepared.
func oneConnectionFixture(t *testing.T, dbURL string) *moneyFixture {
	t.Helper()
	db, err := store.Open(context.Background(), dbURL, 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return fixtureOn(t, db, false)
}

func fixtureOn(t *testing.T, db *bun.DB, livemode bool) *moneyFixture {
	t.Helper()
	st, err := store.New(db, store.Options{SecretKey: make([]byte, 32)}) // the key: for the tests that add webhooks
	require.NoError(t, err)
	acct, err := st.CreateAccount(context.Background(), store.NewAccount{Name: "Loja", Email: "loja@example.com", FeeBPS: 100})
	require.NoError(t, err)
	return &moneyFixture{t: t, db: db, st: st, scope: store.Scope{AccountID: acct.ID, Livemode: livemode}, acct: acct}
}

func (f *moneyFixture) createPayment(amount int64) *store.Payment {
	f.t.Helper()
	now := f.st.Now()
	p := &store.Payment{
		ID: ids.NewPayment(now), AccountID: f.scope.AccountID, Livemode: f.scope.Livemode, Status: store.StatusPending,
		AmountCents: amount, Currency: "BRL", PaymentMethod: "pix", CorrelationID: pix.NewTxID(),
		FeeCents: f.acct.Fee(amount), BRCode: "x", QRCodeURL: "http://x/qr.png", CheckoutURL: "http://x/pay",
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
	}
	require.NoError(f.t, f.st.CreatePayment(context.Background(), p))
	return p
}

func (f *moneyFixture) paidPayment(amount int64) *store.Payment {
	f.t.Helper()
	p := f.createPayment(amount)
	p, err := f.st.MarkPaymentPaid(context.Background(), f.scope, p.ID.String(), nil)
	require.NoError(f.t, err)
	return p
}

// checkBalance asserts the running balance equals both want and the sum of
// the ledger's entries.
func (f *moneyFixture) checkBalance(available, pending int64) {
	f.t.Helper()
	b, err := f.st.Balance(context.Background(), f.scope)
	require.NoError(f.t, err)
	sumAvailable, sumPending, err := storetest.LedgerSums(context.Background(), f.db, f.scope)
	require.NoError(f.t, err)
	require.Equal(f.t, [2]int64{available, pending}, [2]int64{b.AvailableCents, b.PendingCents}, "balance")
	require.Equal(f.t, [2]int64{available, pending}, [2]int64{sumAvailable, sumPending}, "ledger sums")
}

type writtenRow struct {
	Table string `bun:"tbl"`
	Label string `bun:"label"`
	XMin  string `bun:"xmin"`
}

// written lists the events, ledger entries, refunds, disputes and
// withdrawals rows with their writing transaction (xmin).
func (f *moneyFixture) written() map[string]writtenRow {
	f.t.Helper()
	var rows []writtenRow
	err := f.db.NewRaw(`
		SELECT 'event' AS tbl, id || ' ' || type AS label, xmin::text AS xmin FROM events
		UNION ALL SELECT 'ledger', id::text || ' ' || type || ' ' || balance || ' ' || amount_cents, xmin::text FROM ledger_entries
		UNION ALL SELECT 'refund', id || ' ' || reason, xmin::text FROM refunds
		UNION ALL SELECT 'dispute', id || ' ' || status, xmin::text FROM disputes
		UNION ALL SELECT 'withdrawal', id || ' ' || status, xmin::text FROM withdrawals
		UNION ALL SELECT 'payment', id::text || ' ' || status, xmin::text FROM payments`).Scan(context.Background(), &rows)
	require.NoError(f.t, err)
	out := make(map[string]writtenRow, len(rows))
	for _, r := range rows {
		out[r.Table+" "+r.Label] = r
	}
	return out
}

// step runs fn and asserts what it wrote: exactly the events wantEvents (by
// type, in any order) and ledger lines wantLedger ("type balance amount"),
// every new or changed row written by one transaction.
func (f *moneyFixture) step(name string, wantEvents, wantLedger []string, fn func() error) {
	f.t.Helper()
	before := f.written()
	require.NoError(f.t, fn(), name)
	after := f.written()
	var events, ledger []string
	xmins := map[string]bool{}
	for key, r := range after {
		if _, seen := before[key]; seen {
			continue
		}
		xmins[r.XMin] = true
		switch r.Table {
		case "event":
			events = append(events, r.Label[len("evt_")+23:])
		case "ledger":
			var id int64
			var kind, balance string
			var amount int64
			_, err := fmt.Sscanf(r.Label, "%d %s %s %d", &id, &kind, &balance, &amount)
			require.NoError(f.t, err)
			ledger = append(ledger, fmt.Sprintf("%s %s %d", kind, balance, amount))
		}
	}
	slices.Sort(events)
	slices.Sort(wantEvents)
	slices.Sort(ledger)
	slices.Sort(wantLedger)
	require.Equal(f.t, wantEvents, events, "%s: events", name)
	require.Equal(f.t, wantLedger, ledger, "%s: ledger", name)
	if len(wantEvents)+len(wantLedger) == 0 {
		require.Equal(f.t, before, after, "%s: changes nothing", name)
		return
	}
	require.Len(f.t, xmins, 1, "%s: every row it wrote (state, events, ledger) belongs to one transaction", name)
}

// refused runs fn, expects err, and asserts nothing at all was written.
func (f *moneyFixture) refused(name string, want error, fn func() error) {
	f.t.Helper()
	before := f.written()
	require.ErrorIs(f.t, fn(), want, name)
	require.Equal(f.t, before, f.written(), "%s: a refused change writes nothing", name)
}

func TestEveryTransitionRecordsOneEventInItsTransaction(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	s := f.scope

	var p *store.Payment
	f.step("create", []string{"payment.created"}, nil, func() error { p = f.createPayment(10_000); return nil })
	f.step("pay", []string{"payment.paid"}, []string{"payment available 10000", "fee available -100"}, func() error {
		_, err := f.st.MarkPaymentPaid(ctx, s, p.ID.String(), nil)
		return err
	})
	f.checkBalance(9_900, 0)
	f.step("refund", []string{"payment.refunded", "refund.succeeded"}, []string{"refund available -10000", "fee_refund available 100"}, func() error {
		_, _, err := f.st.RefundPayment(ctx, s, p.ID.String(), store.NewRefund{})
		return err
	})
	f.checkBalance(0, 0)
	refunds, err := f.st.RefundsForPayment(ctx, s, p.ID)
	require.NoError(t, err)
	require.Len(t, refunds, 1)
	require.Equal(t, store.RefundRequested, refunds[0].Reason)

	won := f.paidPayment(5_000)
	var d *store.Dispute
	f.step("dispute opened", []string{"dispute.opened"}, []string{"dispute_hold available -5000", "dispute_hold pending 5000"}, func() error {
		d, err = f.st.OpenDispute(ctx, s, won.ID.String(), store.DisputeReport{Reason: "fraud"})
		return err
	})
	f.checkBalance(4_950-5_000, 5_000)
	f.refused("refund while disputed", store.ErrPaymentDisputed, func() error {
		_, _, err := f.st.RefundPayment(ctx, s, won.ID.String(), store.NewRefund{})
		return err
	})
	f.step("dispute won", []string{"dispute.won"}, []string{"dispute_release pending -5000", "dispute_release available 5000"}, func() error {
		_, err := f.st.CloseDispute(ctx, s, d.ID, store.DisputeWon)
		return err
	})
	f.step("won again", nil, nil, func() error { _, err := f.st.CloseDispute(ctx, s, d.ID, store.DisputeWon); return err })
	f.refused("lose a won dispute", store.ErrInvalidTransition, func() error {
		_, err := f.st.CloseDispute(ctx, s, d.ID, store.DisputeLost)
		return err
	})
	f.checkBalance(4_950, 0)

	lost := f.paidPayment(2_000)
	d, err = f.st.OpenDispute(ctx, s, lost.ID.String(), store.DisputeReport{Reason: "operational_failure"})
	require.NoError(t, err)
	f.refused("a claim above what was received", store.ErrDisputeAmount, func() error {
		_, err := f.st.OpenDispute(ctx, s, lost.ID.String(), store.DisputeReport{Reason: "fraud", AmountCents: 2_001})
		return err
	})
	f.step("dispute lost", []string{"dispute.lost", "payment.refunded"}, []string{"dispute_loss pending -2000", "fee_refund available 20"}, func() error {
		_, err := f.st.CloseDispute(ctx, s, d.ID, store.DisputeLost)
		return err
	})
	f.checkBalance(4_950, 0)
	lostNow, err := f.st.Payment(ctx, s, lost.ID.String())
	require.NoError(t, err)
	require.Equal(t, store.StatusRefunded, lostNow.Status)
	refunds, err = f.st.RefundsForPayment(ctx, s, lost.ID)
	require.NoError(t, err)
	require.Equal(t, store.RefundDisputeLost, refunds[0].Reason)
	require.Equal(t, d.ID, *refunds[0].DisputeID)

	f.refused("withdraw more than available", store.ErrBalanceInsufficient, func() error {
		return f.st.CreateWithdrawal(ctx, &store.Withdrawal{AccountID: s.AccountID, AmountCents: 4_951, PixKey: "a@example.com", PixKeyType: "email"})
	})
	w1 := &store.Withdrawal{AccountID: s.AccountID, AmountCents: 1_000, PixKey: "a@example.com", PixKeyType: "email"}
	f.step("withdraw", nil, []string{"withdrawal available -1000"}, func() error { return f.st.CreateWithdrawal(ctx, w1) })
	f.step("withdrawal completed", []string{"withdrawal.completed"}, nil, func() error {
		_, _, err := f.st.FinishWithdrawal(ctx, &s, w1.ID, store.WithdrawalResult{Status: store.WithdrawalCompleted})
		return err
	})
	w2 := &store.Withdrawal{AccountID: s.AccountID, AmountCents: 3_950, PixKey: "a@example.com", PixKeyType: "email"}
	require.NoError(t, f.st.CreateWithdrawal(ctx, w2))
	f.checkBalance(0, 0)
	f.refused("refund with nothing available", store.ErrBalanceInsufficient, func() error {
		_, _, err := f.st.RefundPayment(ctx, s, won.ID.String(), store.NewRefund{})
		return err
	})
	reason := "key not found"
	f.step("withdrawal failed", []string{"withdrawal.failed"}, []string{"withdrawal_reversal available 3950"}, func() error {
		_, _, err := f.st.FinishWithdrawal(ctx, &s, w2.ID, store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason})
		return err
	})
	f.step("failed again", nil, nil, func() error {
		_, dup, err := f.st.FinishWithdrawal(ctx, nil, w2.ID, store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason})
		require.True(t, dup)
		return err
	})
	f.refused("complete a failed withdrawal", store.ErrInvalidTransition, func() error {
		_, _, err := f.st.FinishWithdrawal(ctx, nil, w2.ID, store.WithdrawalResult{Status: store.WithdrawalCompleted})
		return err
	})
	f.checkBalance(3_950, 0)

	pending := f.createPayment(700)
	f.step("cancel", []string{"payment.canceled"}, nil, func() error {
		_, err := f.st.CancelPayment(ctx, s, pending.ID.String(), nil)
		return err
	})
	expiring := f.createPayment(700)
	f.step("expire", []string{"payment.expired"}, nil, func() error {
		_, err := f.st.ExpirePayment(ctx, s, expiring.ID.String(), nil)
		return err
	})
	f.refused("dispute an expired payment", store.ErrInvalidTransition, func() error {
		_, err := f.st.OpenDispute(ctx, s, expiring.ID.String(), store.DisputeReport{Reason: "fraud"})
		return err
	})
	f.step("a real transfer never pays a test charge", nil, nil, func() error {
		n := &store.PixNotification{EndToEndID: "E" + pix.RandomBase62(31), TxID: expiring.CorrelationID, AmountCents: 700, Raw: []byte(`{}`)}
		require.NoError(t, f.st.RecordPixNotification(ctx, n))
		require.Equal(t, store.PixUnknownTxID, n.Outcome)
		return nil
	})
	f.checkBalance(3_950, 0)

	live := newLiveMoneyFixture(t)
	expiredLive := live.createPayment(700)
	_, err = live.st.ExpirePayment(ctx, live.scope, expiredLive.ID.String(), nil)
	require.NoError(t, err)
	live.step("PSP pays the expired charge", []string{"payment.paid"}, []string{"payment available 700", "fee available -7"}, func() error {
		return live.st.RecordPixNotification(ctx, &store.PixNotification{EndToEndID: "E" + pix.RandomBase62(31), TxID: expiredLive.CorrelationID, AmountCents: 700, Raw: []byte(`{}`)})
	})
	mismatched := live.createPayment(900)
	live.step("PSP amount mismatch", nil, nil, func() error {
		return live.st.RecordPixNotification(ctx, &store.PixNotification{EndToEndID: "E" + pix.RandomBase62(31), TxID: mismatched.CorrelationID, AmountCents: 899, Raw: []byte(`{}`)})
	})
	live.checkBalance(693, 0)
}

func TestPSPDisputeNotificationsAreIdempotent(t *testing.T) {
	t.Parallel()
	f := newLiveMoneyFixture(t)
	ctx := context.Background()
	p := f.createPayment(3_000)
	e2e := "E" + pix.RandomBase62(31)
	require.NoError(t, f.st.RecordPixNotification(ctx, &store.PixNotification{EndToEndID: e2e, TxID: p.CorrelationID, AmountCents: 3_000, Raw: []byte(`{}`)}))
	f.checkBalance(2_970, 0)

	in := store.PSPDispute{Reference: "MED-77", EndToEndID: e2e, Reason: "fraud", Status: store.DisputeOpen}
	var first *store.Dispute
	f.step("opened", []string{"dispute.opened"}, []string{"dispute_hold available -3000", "dispute_hold pending 3000"}, func() error {
		d, dup, err := f.st.ApplyPSPDispute(ctx, in)
		require.False(t, dup)
		first = d
		return err
	})
	f.step("opened again", nil, nil, func() error {
		d, dup, err := f.st.ApplyPSPDispute(ctx, in)
		require.True(t, dup)
		require.Equal(t, first.ID, d.ID)
		return err
	})
	in.Status = store.DisputeLost
	f.step("lost", []string{"dispute.lost", "payment.refunded"}, []string{"dispute_loss pending -3000", "fee_refund available 30"}, func() error {
		_, dup, err := f.st.ApplyPSPDispute(ctx, in)
		require.False(t, dup)
		return err
	})
	f.step("lost again", nil, nil, func() error {
		_, dup, err := f.st.ApplyPSPDispute(ctx, in)
		require.True(t, dup)
		return err
	})
	in.Status = store.DisputeOpen
	f.refused("reopen", store.ErrInvalidTransition, func() error { _, _, err := f.st.ApplyPSPDispute(ctx, in); return err })
	f.checkBalance(0, 0)

	// The PSP's "opened" was lost and its first word is "won": both happen at once.
	q := f.createPayment(1_000)
	e2e2 := "E" + pix.RandomBase62(31)
	require.NoError(t, f.st.RecordPixNotification(ctx, &store.PixNotification{EndToEndID: e2e2, TxID: q.CorrelationID, AmountCents: 1_000, Raw: []byte(`{}`)}))
	f.step("won first", []string{"dispute.opened", "dispute.won"}, []string{
		"dispute_hold available -1000", "dispute_hold pending 1000", "dispute_release pending -1000", "dispute_release available 1000",
	}, func() error {
		d, _, err := f.st.ApplyPSPDispute(ctx, store.PSPDispute{Reference: "MED-78", EndToEndID: e2e2, Reason: "fraud", Status: store.DisputeWon})
		require.NoError(t, err)
		require.Equal(t, store.DisputeWon, d.Status)
		return nil
	})
	f.refused("unknown transfer", store.ErrNotFound, func() error {
		_, _, err := f.st.ApplyPSPDispute(ctx, store.PSPDispute{Reference: "MED-79", EndToEndID: "E" + pix.RandomBase62(31), Reason: "fraud", Status: store.DisputeOpen})
		return err
	})
	f.checkBalance(990, 0)
}

// TestRandomizedMoneyMovementKeepsTheLedger runs 1,000 random operations
// against a model of what each must do, and checks the running balance
// equals both the model and the sum of the ledger's entries.
func TestRandomizedMoneyMovementKeepsTheLedger(t *testing.T) {
	t.Parallel()
	f := newLiveMoneyFixture(t)
	ctx := context.Background()
	s := f.scope
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	type modelPayment struct {
		p        *store.Payment
		status   string
		dispute  *store.Dispute
		disputed bool
	}
	var payments []*modelPayment
	var pendingWithdrawals []*store.Withdrawal
	var available, pending int64
	pick := func(ok func(*modelPayment) bool) *modelPayment {
		var c []*modelPayment
		for _, m := range payments {
			if ok(m) {
				c = append(c, m)
			}
		}
		if len(c) == 0 {
			return nil
		}
		return c[rng.IntN(len(c))]
	}
	counts := map[string]int{}
	for i := range 1000 {
		op := rng.IntN(10)
		switch op {
		case 0, 1: // create
			amount := int64(100 + rng.IntN(50_000))
			payments = append(payments, &modelPayment{p: f.createPayment(amount), status: store.StatusPending})
			counts["create"]++
		case 2, 3: // a transfer the PSP confirmed pays it
			m := pick(func(m *modelPayment) bool { return m.status == store.StatusPending })
			if m == nil {
				continue
			}
			n := &store.PixNotification{EndToEndID: "E" + pix.RandomBase62(31), TxID: m.p.CorrelationID, AmountCents: m.p.AmountCents, Raw: []byte(`{}`)}
			require.NoError(t, f.st.RecordPixNotification(ctx, n))
			require.Equal(t, store.PixPaid, n.Outcome)
			m.status = store.StatusPaid
			available += m.p.AmountCents - m.p.FeeCents
			counts["pay"]++
		case 4: // refund in full; the devolução succeeds, or fails and the money comes back
			m := pick(func(m *modelPayment) bool { return m.status == store.StatusPaid })
			if m == nil {
				continue
			}
			r, err := f.st.CreateRefund(ctx, s, m.p.ID.String(), store.NewRefund{})
			switch {
			case m.dispute != nil && m.dispute.Status == store.DisputeOpen:
				require.ErrorIs(t, err, store.ErrPaymentDisputed)
			case available < m.p.AmountCents-m.p.FeeCents:
				require.ErrorIs(t, err, store.ErrBalanceInsufficient)
			default:
				require.NoError(t, err)
				res := store.RefundResult{Status: store.RefundSucceeded}
				if rng.IntN(3) == 0 {
					reason := "NAO_REALIZADO"
					res = store.RefundResult{Status: store.RefundFailed, FailureReason: &reason}
					counts["refund failed"]++
				} else {
					m.status = store.StatusRefunded
					available -= m.p.AmountCents - m.p.FeeCents
				}
				_, _, err = f.st.SettleRefund(ctx, nil, r.ID, res)
				require.NoError(t, err)
			}
			counts["refund"]++
		case 5: // dispute
			m := pick(func(m *modelPayment) bool { return m.status == store.StatusPaid && !m.disputed })
			if m == nil {
				continue
			}
			d, err := f.st.OpenDispute(ctx, s, m.p.ID.String(), store.DisputeReport{Reason: "fraud"})
			require.NoError(t, err)
			m.dispute, m.disputed = d, true
			available -= m.p.AmountCents
			pending += m.p.AmountCents
			counts["dispute"]++
		case 6: // close a dispute
			m := pick(func(m *modelPayment) bool { return m.dispute != nil && m.dispute.Status == store.DisputeOpen })
			if m == nil {
				continue
			}
			status := []string{store.DisputeWon, store.DisputeLost}[rng.IntN(2)]
			d, err := f.st.CloseDispute(ctx, s, m.dispute.ID, status)
			require.NoError(t, err)
			m.dispute = d
			pending -= m.p.AmountCents
			if status == store.DisputeWon {
				available += m.p.AmountCents
			} else {
				available += m.p.FeeCents
				m.status = store.StatusRefunded
			}
			counts["close dispute"]++
		case 7, 8: // withdraw, sometimes more than there is
			amount := 1 + rng.Int64N(max(available, 1)+5_000)
			w := &store.Withdrawal{AccountID: s.AccountID, Livemode: s.Livemode, AmountCents: amount, PixKey: "a@example.com", PixKeyType: "email"}
			err := f.st.CreateWithdrawal(ctx, w)
			if amount > available {
				require.ErrorIs(t, err, store.ErrBalanceInsufficient)
				counts["withdraw refused"]++
				continue
			}
			require.NoError(t, err)
			available -= amount
			pendingWithdrawals = append(pendingWithdrawals, w)
			counts["withdraw"]++
		case 9: // the PSP ends a withdrawal
			if len(pendingWithdrawals) == 0 {
				continue
			}
			j := rng.IntN(len(pendingWithdrawals))
			w := pendingWithdrawals[j]
			pendingWithdrawals = slices.Delete(pendingWithdrawals, j, j+1)
			res := store.WithdrawalResult{Status: store.WithdrawalCompleted}
			if rng.IntN(3) == 0 {
				reason := "rejected"
				res = store.WithdrawalResult{Status: store.WithdrawalFailed, FailureReason: &reason}
				available += w.AmountCents
			}
			_, _, err := f.st.FinishWithdrawal(ctx, nil, w.ID, res)
			require.NoError(t, err)
			counts["finish withdrawal"]++
		}
		if i%100 == 99 {
			f.checkBalance(available, pending)
		}
	}
	t.Logf("operations: %v", counts)
	f.checkBalance(available, pending)
	for _, op := range []string{"pay", "refund", "refund failed", "dispute", "close dispute", "withdraw", "withdraw refused", "finish withdrawal"} {
		require.Positive(t, counts[op], "the run exercised %s", op)
	}
}
