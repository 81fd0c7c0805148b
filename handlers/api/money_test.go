package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/storetest"
	"payments/web/webtest"
)

func balance(t *testing.T, s *webtest.Server, key string) (available, pending int64) {
	t.Helper()
	b := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: key}).JSON(t)
	return int64(b["available_cents"].(float64)), int64(b["pending_cents"].(float64))
}

func TestConcurrentWithdrawalsNeverOverdraw(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	s.Fund(s.TestKey, 101_010) // fee 1,000: available 100,010 covers ten withdrawals of 10,000
	available, _ := balance(t, s, s.TestKey)
	require.EqualValues(t, 100_010, available)

	statuses := make([]int, 100)
	codes := make([]string, 100)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range statuses {
		wg.Go(func() {
			<-start
			r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey,
				Body: map[string]any{"amount_cents": 10_000, "pix_key": "11.222.333/0001-81"}})
			statuses[i] = r.Status
			if r.Status != http.StatusCreated {
				codes[i] = r.ErrorCode(t)
			}
		})
	}
	close(start)
	wg.Wait()
	count := map[int]int{}
	for i, st := range statuses {
		count[st]++
		if st == http.StatusConflict {
			require.Equal(t, "balance_insufficient", codes[i])
		}
	}
	require.Equal(t, map[int]int{http.StatusCreated: 10, http.StatusConflict: 90}, count)
	available, pending := balance(t, s, s.TestKey)
	require.EqualValues(t, 10, available)
	require.Zero(t, pending)
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals?limit=100", Key: s.TestKey}).JSON(t)
	require.Len(t, list["data"], 10)
	sumAvailable, _, err := storetest.LedgerSums(context.Background(), s.DB, storeScope(s, false))
	require.NoError(t, err)
	require.EqualValues(t, 10, sumAvailable, "the running balance is the ledger's sum")
}

func TestWithdrawalLifecycle(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	s.Fund(s.TestKey, 50_000) // available 49,505
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{
		"amount_cents": 20_000, "pix_key": "Ana@Example.com", "description": "Saque", "metadata": map[string]any{"ref": "42"}}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	w := r.JSON(t)
	require.Regexp(t, `^wd_[0-9A-Za-z]{22}$`, w["id"])
	require.Equal(t, "withdrawal", w["object"])
	require.Equal(t, "pending", w["status"])
	require.Equal(t, "ana@example.com", w["pix_key"])
	require.Equal(t, "email", w["pix_key_type"])
	require.Equal(t, "R$ 200,00", w["amount_label"])
	require.Equal(t, false, w["livemode"])
	available, _ := balance(t, s, s.TestKey)
	require.EqualValues(t, 29_505, available, "a pending withdrawal has left the available balance")

	id := w["id"].(string)
	fail := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + id + "/fail", Key: s.TestKey,
		Body: map[string]any{"failure_reason": "Chave inexistente"}}).JSON(t)
	require.Equal(t, "failed", fail["status"])
	require.Equal(t, "Chave inexistente", fail["failure_reason"])
	require.NotNil(t, fail["failed_at"])
	available, _ = balance(t, s, s.TestKey)
	require.EqualValues(t, 49_505, available, "a failed withdrawal gives the amount back")
	again := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + id + "/complete", Key: s.TestKey})
	require.Equal(t, http.StatusConflict, again.Status)
	require.Equal(t, "withdrawal_invalid_state", again.ErrorCode(t))

	// Live keys never see test withdrawals; other accounts never see ours.
	require.Equal(t, http.StatusNotFound, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/" + id, Key: s.LiveKey}).Status)
	_, otherTest, _ := s.NewAccount("Outra", "outra@example.com")
	require.Equal(t, http.StatusNotFound, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/" + id, Key: otherTest}).Status)
	require.Equal(t, http.StatusNotFound, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + id + "/complete", Key: otherTest}).Status)
	live, _ := balance(t, s, s.LiveKey)
	require.Zero(t, live)
}

func TestCreateWithdrawalValidation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	s.Fund(s.TestKey, 10_000)
	long := make([]byte, 141)
	for i := range long {
		long[i] = 'a'
	}
	cases := []struct {
		body  map[string]any
		code  string
		param string
	}{
		{map[string]any{"pix_key": "ana@example.com"}, "parameter_missing", "amount_cents"},
		{map[string]any{"amount_cents": 0, "pix_key": "ana@example.com"}, "amount_too_small", "amount_cents"},
		{map[string]any{"amount_cents": 10_000_000_001, "pix_key": "ana@example.com"}, "amount_too_large", "amount_cents"},
		{map[string]any{"amount_cents": "100", "pix_key": "ana@example.com"}, "parameter_invalid_type", "amount_cents"},
		{map[string]any{"amount_cents": 1.5, "pix_key": "ana@example.com"}, "parameter_invalid_type", "amount_cents"},
		{map[string]any{"amount_cents": 100}, "parameter_missing", "pix_key"},
		{map[string]any{"amount_cents": 100, "pix_key": "529.982.247-24"}, "pix_key_invalid", "pix_key"},
		{map[string]any{"amount_cents": 100, "pix_key": "61988880000"}, "pix_key_invalid", "pix_key"},
		{map[string]any{"amount_cents": 100, "pix_key": 52998224725}, "parameter_invalid_type", "pix_key"},
		{map[string]any{"amount_cents": 100, "pix_key": "ana@example.com", "description": string(long)}, "parameter_too_long", "description"},
		{map[string]any{"amount_cents": 100, "pix_key": "ana@example.com", "metadata": map[string]any{"k": 1}}, "parameter_invalid_type", "metadata[k]"},
		{map[string]any{"amount_cents": 100, "pix_key": "ana@example.com", "currency": "BRL"}, "parameter_unknown", "currency"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: c.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.body, r.Body)
		require.Equal(t, c.code, r.ErrorCode(t), "%v", c.body)
		require.Equal(t, c.param, r.ErrorParam(t), "%v", c.body)
	}
	available, _ := balance(t, s, s.TestKey)
	require.EqualValues(t, 9_901, available, "no refused request moved money")
	require.Empty(t, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals", Key: s.TestKey}).JSON(t)["data"])
}

func TestDisputeLifecycleOverHTTP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	receiver := webtest.NewReceiver(t, nil)
	s.CreateWebhook(receiver.URL, map[string]any{"events": []string{"dispute.opened", "dispute.won", "dispute.lost", "payment.refunded"}})
	id := s.Fund(s.TestKey, 10_000) // fee 99
	pay := func(action string) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/" + action, Key: s.TestKey})
	}
	require.Equal(t, http.StatusForbidden, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/dispute", Key: s.LiveKey}).Status)
	r := pay("dispute")
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	d := r.JSON(t)
	require.Regexp(t, `^dsp_[0-9A-Za-z]{22}$`, d["id"])
	require.Equal(t, map[string]any{"object": "dispute", "status": "open", "payment_id": id, "amount_cents": 10_000.0, "reason": "fraud", "closed_at": nil},
		map[string]any{"object": d["object"], "status": d["status"], "payment_id": d["payment_id"], "amount_cents": d["amount_cents"], "reason": d["reason"], "closed_at": d["closed_at"]})
	available, pending := balance(t, s, s.TestKey)
	require.EqualValues(t, [2]int64{-99, 10_000}, [2]int64{available, pending}, "the dispute holds the amount")

	refund := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + id + "/refund", Key: s.TestKey})
	require.Equal(t, http.StatusConflict, refund.Status)
	require.Equal(t, "payment_disputed", refund.ErrorCode(t))
	dspID := d["id"].(string)
	lost := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/disputes/" + dspID + "/lose", Key: s.TestKey}).JSON(t)
	require.Equal(t, "lost", lost["status"])
	require.NotNil(t, lost["closed_at"])
	payment := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey}).JSON(t)
	require.Equal(t, "refunded", payment["status"], "a lost dispute refunds the payment")
	available, pending = balance(t, s, s.TestKey)
	require.EqualValues(t, [2]int64{0, 0}, [2]int64{available, pending}, "the money went back to the payer, the fee to the merchant")

	require.Equal(t, 3, s.Dispatcher.RunOnce(context.Background(), 10))
	got := receiver.WaitFor(3, 5*time.Second)
	var types []string
	for _, g := range got {
		var env struct {
			Type string `json:"type"`
			Data struct {
				Object map[string]any `json:"object"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(g.Body, &env))
		types = append(types, env.Type)
		switch env.Type {
		case "dispute.opened":
			require.Equal(t, d, env.Data.Object, "the event carries the dispute as it was opened")
		case "dispute.lost":
			require.Equal(t, lost, env.Data.Object)
		case "payment.refunded":
			require.Equal(t, payment, env.Data.Object)
		}
	}
	require.ElementsMatch(t, []string{"dispute.opened", "dispute.lost", "payment.refunded"}, types)

	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes?status=lost", Key: s.TestKey}).JSON(t)
	require.Len(t, list["data"], 1)
	require.Empty(t, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes", Key: s.LiveKey}).JSON(t)["data"])
}

func TestRefundNeedsAvailableBalance(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	id := s.Fund(s.TestKey, 10_000)
	w := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{"amount_cents": 9_901, "pix_key": "+5561988880000"}})
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Body)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + id + "/refund", Key: s.TestKey})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "balance_insufficient", r.ErrorCode(t))
	status := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey}).JSON(t)["status"]
	require.Equal(t, "paid", status, "a refused refund changes nothing")
	require.Equal(t, []string{"payment.created", "payment.paid"}, s.EventTypes(id))
}

func storeScope(s *webtest.Server, livemode bool) store.Scope {
	return store.Scope{AccountID: s.Account.ID, Livemode: livemode}
}
