package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/web/webtest"
)

// splitPlatform is a platform with two subaccounts, and a caller of the API
// as the platform (account "") or as one of them.
type splitPlatform struct {
	s                *webtest.Server
	sellerA, sellerB string
}

func newSplitPlatform(t *testing.T, s *webtest.Server) splitPlatform {
	t.Helper()
	p := splitPlatform{s: s}
	for i, dst := range []*string{&p.sellerA, &p.sellerB} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Body: map[string]any{
			"name": []string{"Padaria", "Açougue"}[i], "document": "529.982.247-25", "email": "s@example.com", "pix_key": "s@example.com"}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		*dst = r.JSON(t)["id"].(string)
	}
	return p
}

func (p splitPlatform) call(t *testing.T, method, path, account string, body any, want int) map[string]any {
	t.Helper()
	req := webtest.Request{Method: method, Path: path, Key: p.s.TestKey, Body: body}
	if account != "" {
		req.Headers = map[string]string{"Payments-Account": account}
	}
	r := p.s.Do(req)
	require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
	return r.JSON(t)
}

// balance is an account's money, available and pending together.
func (p splitPlatform) balance(t *testing.T, account string) int64 {
	t.Helper()
	b := p.call(t, "GET", "/api/v1/balance", account, nil, http.StatusOK)
	return int64(b["available_cents"].(float64) + b["pending_cents"].(float64))
}

// A split charge in test mode: its parts are credited to their accounts
// when it is paid, in its transaction (the percent part bearing its share
// of the fee when asked), the platform keeping the rest of the net; half
// refunded, each account gives back its part's share, the platform the
// rest and its fee share back; every ledger equals its balance. A
// subaccount's charge may split to its platform. What may not be split is
// a 400 naming the split.
func TestSplitChargesCreditEachAccountAndRefundProRata(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := newSplitPlatform(t, s)
	charge := p.call(t, "POST", "/api/v1/payments", "", map[string]any{"amount_cents": 10_000, "splits": []any{
		map[string]any{"account": p.sellerA, "amount_cents": 3_000},
		map[string]any{"account": p.sellerB, "percent": 12.5, "fee_payer": "recipient"},
	}}, http.StatusCreated)
	require.Equal(t, []any{
		map[string]any{"account": p.sellerA, "amount_cents": 3_000.0, "percent": nil, "fee_payer": "account", "net_cents": nil},
		map[string]any{"account": p.sellerB, "amount_cents": nil, "percent": 12.5, "fee_payer": "recipient", "net_cents": nil},
	}, charge["splits"])
	id := charge["id"].(string)
	paid := p.call(t, "POST", "/api/v1/test_helpers/payments/"+id+"/pay", "", nil, http.StatusOK)
	fee := int64(paid["fee_cents"].(float64))
	partB := 1_250 - fee*1_250/10_000
	require.Equal(t, []any{3_000.0, float64(partB)}, []any{paid["splits"].([]any)[0].(map[string]any)["net_cents"],
		paid["splits"].([]any)[1].(map[string]any)["net_cents"]})
	require.Equal(t, []int64{10_000 - fee - 3_000 - partB, 3_000, partB}, []int64{p.balance(t, ""), p.balance(t, p.sellerA), p.balance(t, p.sellerB)})

	refund := p.call(t, "POST", "/api/v1/refunds", "", map[string]any{"payment": id, "amount_cents": 5_000}, http.StatusCreated)
	feeBack := int64(refund["fee_cents"].(float64))
	shareA, shareB := int64(5_000*3_000/10_000), 5_000*partB/10_000
	require.Equal(t, []int64{10_000 - fee - 3_000 - partB - (5_000 - feeBack - shareA - shareB), 3_000 - shareA, partB - shareB},
		[]int64{p.balance(t, ""), p.balance(t, p.sellerA), p.balance(t, p.sellerB)})
	for _, account := range []string{s.Account.ID, p.sellerA, p.sellerB} {
		s.LedgerMatchesBalance(store.Scope{AccountID: account})
	}
	// Its receipt names each part: whom else it paid, and how much.
	receipt := string(s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/receipt", Headers: map[string]string{"Accept-Language": "pt-BR"}}).Body)
	for _, want := range []string{"Parte de Padaria", "R$ 30,00", "Parte de Açougue", pix.FormatBRL(partB)} {
		require.Contains(t, strings.ReplaceAll(receipt, "\u00a0", " "), want)
	}

	// A seller's charge may split to its platform, and to the other seller.
	own := p.call(t, "POST", "/api/v1/payments", p.sellerA, map[string]any{"amount_cents": 2_000, "splits": []any{
		map[string]any{"account": s.Account.ID, "percent": 10}, map[string]any{"account": p.sellerB, "amount_cents": 1}}}, http.StatusCreated)
	before := p.balance(t, "")
	p.call(t, "POST", "/api/v1/test_helpers/payments/"+own["id"].(string)+"/pay", p.sellerA, nil, http.StatusOK)
	require.Equal(t, before+200, p.balance(t, ""))

	// A batch's charges take splits too, each checked on its own.
	batch := p.call(t, "POST", "/api/v1/payment_batches", "", map[string]any{"payments": []any{
		map[string]any{"external_id": "lote-1", "amount_cents": 4_000, "splits": []any{map[string]any{"account": p.sellerB, "amount_cents": 400}}},
		map[string]any{"external_id": "lote-2", "amount_cents": 4_000, "splits": []any{map[string]any{"account": s.Account.ID, "amount_cents": 400}}},
	}}, http.StatusCreated)
	items := batch["items"].([]any)
	require.Nil(t, items[0].(map[string]any)["error"])
	require.Equal(t, "split_account_invalid", items[1].(map[string]any)["error"].(map[string]any)["code"])
	first := p.call(t, "GET", "/api/v1/payments/lote-1", "", nil, http.StatusOK)
	require.Equal(t, p.sellerB, first["splits"].([]any)[0].(map[string]any)["account"])
	before = p.balance(t, p.sellerB)
	p.call(t, "POST", "/api/v1/test_helpers/payments/lote-1/pay", "", nil, http.StatusOK)
	require.Equal(t, before+400, p.balance(t, p.sellerB))

	_, strangerKey, _ := s.NewAccount("Outra Plataforma", "outra@example.com")
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: strangerKey, Body: map[string]any{
		"name": "Alheia", "document": "529.982.247-25", "email": "a@example.com", "pix_key": "a@example.com"}})
	require.Equal(t, http.StatusCreated, r.Status)
	foreign := r.JSON(t)["id"].(string)
	many := make([]any, store.MaxSplits+1)
	for i := range many {
		many[i] = map[string]any{"account": p.sellerA, "amount_cents": 1}
	}
	for _, bad := range []struct {
		splits      any
		param, code string
	}{
		{[]any{map[string]any{"account": s.Account.ID, "amount_cents": 100}}, "splits[0].account", "split_account_invalid"},
		{[]any{map[string]any{"account": foreign, "amount_cents": 100}}, "splits[0].account", "split_account_invalid"},
		{[]any{map[string]any{"account": p.sellerA, "amount_cents": 100}, map[string]any{"account": p.sellerA, "percent": 1}}, "splits[1].account", "parameter_invalid"},
		{[]any{map[string]any{"account": p.sellerA, "amount_cents": 9_999}}, "splits", "splits_too_large"},
		{[]any{map[string]any{"account": p.sellerA, "percent": 60}, map[string]any{"account": p.sellerB, "percent": 40}}, "splits", "splits_too_large"},
		{[]any{map[string]any{"account": p.sellerA, "percent": 12.345}}, "splits[0].percent", "parameter_invalid"},
		{[]any{map[string]any{"account": p.sellerA, "percent": "10"}}, "splits[0].percent", "parameter_invalid"},
		{[]any{map[string]any{"account": p.sellerA, "percent": 10, "amount_cents": 5}}, "splits[0].amount_cents", "parameter_invalid"},
		{[]any{map[string]any{"account": p.sellerA, "amount_cents": 5, "fee_payer": "platform"}}, "splits[0].fee_payer", "parameter_invalid"},
		{[]any{map[string]any{"amount_cents": 5}}, "splits[0].account", "parameter_missing"},
		{many, "splits", "parameter_invalid"},
		{"10%", "splits", "parameter_invalid_type"},
		{[]any{1}, "splits[0]", "parameter_invalid_type"},
		{[]any{map[string]any{"account": p.sellerA, "amount_cents": 5}, nil}, "splits[1]", "parameter_invalid_type"},
		{[]any{map[string]any{"account": p.sellerA, "amount_cents": 5}, []any{}}, "splits[1]", "parameter_invalid_type"},
	} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{"amount_cents": 10_000, "splits": bad.splits}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", bad.splits, r.Body)
		require.Equal(t, []string{bad.code, bad.param}, []string{r.ErrorCode(t), r.ErrorParam(t)}, "%v: %s", bad.splits, r.Body)
		require.False(t, strings.Contains(string(r.Body), "acct_") && bad.code == "split_account_invalid" && strings.Contains(string(r.Body), "Outra"),
			"a refusal never tells whose an account is")
	}
}

// A subscription's splits split each cycle's charge: the first, paid as
// the payer authorizes, and the next ones; one that would not fit is
// refused when the subscription is made.
func TestSubscriptionCyclesAreSplit(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	p := newSplitPlatform(t, s)
	sub := p.call(t, "POST", "/api/v1/subscriptions", "", subscriptionBody(map[string]any{"splits": []any{
		map[string]any{"account": p.sellerA, "percent": 40}}}), http.StatusCreated)
	require.Equal(t, p.sellerA, sub["splits"].([]any)[0].(map[string]any)["account"])
	id := sub["id"].(string)
	p.call(t, "POST", "/api/v1/test_helpers/subscriptions/"+id+"/authorize", "", nil, http.StatusOK)
	first := p.call(t, "GET", "/api/v1/payments/"+sub["first_payment"].(string), "", nil, http.StatusOK)
	require.Equal(t, 19_600.0, first["splits"].([]any)[0].(map[string]any)["net_cents"])
	cycle := p.call(t, "POST", "/api/v1/test_helpers/subscriptions/"+id+"/run_cycle", "", map[string]any{"outcome": "pay"}, http.StatusOK)
	require.Equal(t, 19_600.0, cycle["splits"].([]any)[0].(map[string]any)["net_cents"])
	require.Equal(t, int64(2*19_600), p.balance(t, p.sellerA))

	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: subscriptionBody(map[string]any{
		"contract": "ALUNO-0043", "splits": []any{map[string]any{"account": p.sellerA, "percent": 100}}})})
	require.Equal(t, []any{http.StatusBadRequest, "splits_too_large"}, []any{r.Status, r.ErrorCode(t)})
}

// A due-date charge (cobv) takes splits like any other: paid early with its
// discount, the percent part is its percent of what was paid and the fixed
// part its amount, credited in the payment's transaction; the platform
// keeps the rest of the net.
func TestDueDateChargesAreSplit(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	p := newSplitPlatform(t, s)
	charge := p.call(t, "POST", "/api/v1/payments", "", dueBody(map[string]any{"splits": []any{
		map[string]any{"account": p.sellerA, "percent": 10}, map[string]any{"account": p.sellerB, "amount_cents": 50_000}}}), http.StatusCreated)
	require.Equal(t, "2026-03-10", charge["due_date"])
	paid := p.call(t, "POST", "/api/v1/test_helpers/payments/"+charge["id"].(string)+"/pay", "", map[string]any{"date": "2026-03-04"}, http.StatusOK)
	require.EqualValues(t, 95_000, paid["amount_paid_cents"], "the 5% discount until 2026-03-05")
	fee := int64(paid["fee_cents"].(float64))
	require.Equal(t, []any{9_500.0, 50_000.0}, []any{paid["splits"].([]any)[0].(map[string]any)["net_cents"],
		paid["splits"].([]any)[1].(map[string]any)["net_cents"]})
	require.Equal(t, []int64{95_000 - fee - 9_500 - 50_000, 9_500, 50_000}, []int64{p.balance(t, ""), p.balance(t, p.sellerA), p.balance(t, p.sellerB)})
	for _, account := range []string{s.Account.ID, p.sellerA, p.sellerB} {
		s.LedgerMatchesBalance(store.Scope{AccountID: account})
	}
}

// A platform's webhook receives its subaccounts' events, naming the
// account; recovering a window or replaying it sends them again as well,
// not only the platform's own.
func TestPlatformWebhookRecoversAndReplaysItsSubaccountsEvents(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := newSplitPlatform(t, s)
	recv := webtest.NewReceiver(t, nil)
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	p.call(t, "POST", "/api/v1/payments", p.sellerA, map[string]any{"amount_cents": 700}, http.StatusCreated)
	require.Equal(t, 1, s.Dispatcher.RunOnce(t.Context(), 10))
	account := func(r webtest.Received) any {
		var body map[string]any
		require.NoError(t, json.Unmarshal(r.Body, &body))
		return body["account"]
	}
	require.Equal(t, p.sellerA, account(recv.WaitFor(1, 10*time.Second)[0]))

	recovered := p.call(t, "POST", "/api/v1/webhooks/"+hook+"/recover", "", map[string]any{"since": 0}, http.StatusOK)
	require.EqualValues(t, 1, recovered["requeued"])
	require.Equal(t, 1, s.Dispatcher.RunOnce(t.Context(), 10))
	require.Equal(t, p.sellerA, account(recv.WaitFor(2, 10*time.Second)[1]))

	replay := p.call(t, "POST", "/api/v1/webhooks/"+hook+"/replay", "", map[string]any{"from": 0, "to": time.Now().Unix()}, http.StatusAccepted)
	require.EqualValues(t, 1, replay["events_total"])
}

// A marketplace's money moves both ways between a platform and its
// sellers: a seller's charge pays the platform its commission, the
// platform's charges pay sellers. Every transaction that moves several
// accounts' money locks their balances in one order (their ids'), as
// paying a split charge does, so that a refund of the one and a payment
// of the other never wait on each other (PostgreSQL would end one as a
// deadlock). A posting's entries are written with its balance's update,
// so the entries' order is the locks' order.
func TestSplitMoneyLocksAccountsInOneOrder(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := newSplitPlatform(t, s)
	id := p.call(t, "POST", "/api/v1/payments", p.sellerA, map[string]any{"amount_cents": 1_000, "splits": []any{
		map[string]any{"account": p.sellerB, "amount_cents": 100}, map[string]any{"account": s.Account.ID, "percent": 10}}}, http.StatusCreated)["id"].(string)
	p.call(t, "POST", "/api/v1/test_helpers/payments/"+id+"/pay", p.sellerA, nil, http.StatusOK)
	refund := p.call(t, "POST", "/api/v1/refunds", p.sellerA, map[string]any{"payment": id, "amount_cents": 500}, http.StatusCreated)
	var accounts []string
	require.NoError(t, s.DB.NewRaw(`SELECT account_id FROM ledger_entries WHERE source_id = ? ORDER BY id`, refund["id"]).Scan(t.Context(), &accounts))
	require.Len(t, accounts, 5, "the other two accounts give back, the seller takes their parts and pays the refund less its fee")
	require.True(t, slices.IsSorted(accounts), "%v", accounts)
	for _, account := range []string{s.Account.ID, p.sellerA, p.sellerB} {
		s.LedgerMatchesBalance(store.Scope{AccountID: account})
	}
}
