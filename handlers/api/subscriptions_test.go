package api_test

import (
	"context"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/maintenance"
	"payments/pix"
	"payments/store"
	"payments/web/webtest"
)

func subscriptionBody(extra map[string]any) map[string]any {
	b := map[string]any{"payer": map[string]any{"name": "Ana Lima", "document": "529.982.247-25"}, "contract": "ALUNO-0042",
		"description": "Mensalidade escolar", "interval": "monthly", "start_date": "2026-03-10", "amount_cents": 49000,
		"retry_policy": "three_in_seven_days", "journey": "authorization_with_first_payment"}
	return merged(b, extra)
}

// The test-mode walk through a subscription: created with the journey that
// pays the first cycle, authorized (the first cycle paid), three cycles
// (one paid on its second try), then canceled by the payer in their bank.
func TestSubscriptionLifeInTestMode(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	post := func(path string, body any) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "POST", Path: path, Key: s.TestKey, Body: body})
		require.True(t, r.Status == http.StatusOK || r.Status == http.StatusCreated, "%s: %d %s", path, r.Status, r.Body)
		return r.JSON(t)
	}
	sub := post("/api/v1/subscriptions", subscriptionBody(nil))
	id := sub["id"].(string)
	require.Equal(t, "awaiting_authorization", sub["status"])
	require.Regexp(t, `^RRPAYMENTS20260302[0-9A-Za-z]{11}$`, sub["rec_id"], "an idRec that allows retries")
	require.Equal(t, map[string]any{"name": "Ana Lima", "document": "52998224725", "bank_account": nil}, sub["payer"])
	code, err := pix.Decode(sub["br_code"].(string))
	require.NoError(t, err)
	require.Equal(t, "490.00", code.Fields["54"], "the QR pays the first cycle")
	require.Contains(t, sub["br_code"], "0014br.gov.bcb.pix25", "and carries the recurrence (field 80)")
	require.True(t, strings.HasSuffix(sub["checkout_url"].(string), "/pay/subscriptions/"+id))
	first := sub["first_payment"].(string)

	sub = post("/api/v1/test_helpers/subscriptions/"+id+"/authorize", nil)
	require.Equal(t, "active", sub["status"])
	require.Equal(t, "2026-04-10", sub["next_cycle_date"])
	p := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + first, Key: s.TestKey}).JSON(t)
	require.Equal(t, "paid", p["status"])
	require.Equal(t, id, p["subscription"])
	require.Equal(t, map[string]any{"number": 1.0, "due_date": "2026-03-10", "status": "paid", "attempts": 0.0,
		"retry_policy": "three_in_seven_days", "next_attempt_date": nil, "failure_reason": nil}, p["cycle"])

	c2 := post("/api/v1/test_helpers/subscriptions/"+id+"/run_cycle", map[string]any{"outcome": "pay"})
	require.Equal(t, "paid", c2["status"])
	require.Equal(t, "2026-04-10", c2["cycle"].(map[string]any)["due_date"])

	c3 := post("/api/v1/test_helpers/subscriptions/"+id+"/run_cycle", map[string]any{"outcome": "insufficient_balance"})
	require.Equal(t, "pending", c3["status"])
	cycle := c3["cycle"].(map[string]any)
	require.Equal(t, "retrying", cycle["status"])
	require.EqualValues(t, 1, cycle["attempts"])
	require.Equal(t, "2026-05-11", cycle["next_attempt_date"])
	c3 = post("/api/v1/test_helpers/subscriptions/"+id+"/run_cycle", map[string]any{"outcome": "pay"})
	require.Equal(t, "paid", c3["status"], "paid on its second try")
	require.Equal(t, "paid", c3["cycle"].(map[string]any)["status"])

	c4 := post("/api/v1/test_helpers/subscriptions/"+id+"/run_cycle", nil)
	require.Equal(t, "2026-06-10", c4["cycle"].(map[string]any)["due_date"])

	sub = post("/api/v1/test_helpers/subscriptions/"+id+"/payer_cancel", nil)
	require.Equal(t, "canceled", sub["status"])
	require.Equal(t, "payer", sub["canceled_by"])
	require.Nil(t, sub["next_cycle_date"])

	require.Equal(t, []string{"subscription.created", "subscription.activated", "subscription.canceled"}, s.EventTypes(id))
	require.Equal(t, []string{"payment.created", "payment.retry_scheduled", "payment.paid"}, s.EventTypes(c3["id"].(string)))
	cycles := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?subscription=" + id, Key: s.TestKey}).JSON(t)
	require.Len(t, cycles["data"], 4)
	bal := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).JSON(t)
	require.EqualValues(t, 4*(49000-c4["fee_cents"].(float64)), bal["available_cents"], "four cycles paid")

	// Gone for good: no cycle, no authorization.
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/run_cycle", Key: s.TestKey})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "subscription_invalid_state", r.ErrorCode(t))
}

// A cycle the payer's balance never covers is tried four times within
// seven days, then fails: payment.failed, its payment expired.
func TestSubscriptionCycleFailsAfterItsRetries(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: subscriptionBody(map[string]any{
		"journey": "payer_bank_request", "amount_cents": nil, "max_amount_cents": 80000, "interval": "weekly"})})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	sub := r.JSON(t)
	id := sub["id"].(string)
	require.Nil(t, sub["br_code"], "the request goes to the payer's bank: no QR")
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/authorize", Key: s.TestKey}).Status)

	// A variable subscription's cycle needs its amount, at most the ceiling.
	for _, body := range []any{nil, map[string]any{"amount_cents": 80001}} {
		r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + id + "/cycles", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		require.Equal(t, "amount_cents", r.ErrorParam(t))
	}
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + id + "/cycles", Key: s.TestKey, Body: map[string]any{"amount_cents": 31234}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	cycle := r.JSON(t)
	require.EqualValues(t, 31234, cycle["amount_cents"])
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + id + "/cycles", Key: s.TestKey, Body: map[string]any{"amount_cents": 100}})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "cycle_open", r.ErrorCode(t))

	var last map[string]any
	for range 4 {
		r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/run_cycle", Key: s.TestKey,
			Body: map[string]any{"outcome": "insufficient_balance"}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		last = r.JSON(t)
	}
	require.Equal(t, "expired", last["status"])
	require.Equal(t, "failed", last["cycle"].(map[string]any)["status"])
	require.EqualValues(t, 4, last["cycle"].(map[string]any)["attempts"])
	require.Equal(t, []string{"payment.created", "payment.retry_scheduled", "payment.retry_scheduled", "payment.retry_scheduled", "payment.failed"},
		s.EventTypes(cycle["id"].(string)))

	// The cycle's customer is its subscriber (a subscription takes no
	// e-mail): Clientes lists them, and the overview counts the cycle
	// that failed for good among the expired.
	require.Equal(t, map[string]any{"name": "Ana Lima", "email": nil, "document": "52998224725", "phone": nil}, last["customer"])
	ctx := t.Context()
	_, err := s.Store.FoldRollups(ctx)
	require.NoError(t, err)
	scope := store.Scope{AccountID: s.Account.ID}
	payers, _, err := s.Store.ListPayers(ctx, store.PayerListParams{Scope: scope, Limit: 10})
	require.NoError(t, err)
	require.Len(t, payers, 1)
	require.Equal(t, []any{"52998224725", "Ana Lima", "", int64(1), int64(0)},
		[]any{payers[0].Document, payers[0].Name, payers[0].Email, payers[0].Payments, payers[0].Paid})
	points, err := s.Store.OverviewSeries(ctx, scope, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC),
		store.StepDay, time.UTC)
	require.NoError(t, err)
	var expired int64
	for _, p := range points {
		expired += p.Expired
	}
	require.EqualValues(t, 1, expired, "the cycle that failed for good expired")

	// The receiver cancels; canceling again answers the same.
	for range 2 {
		r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + id + "/cancel", Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, "receiver", r.JSON(t)["canceled_by"])
	}
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions", Key: s.TestKey}).JSON(t)
	require.Len(t, list["data"], 1)
}

func TestSubscriptionValidation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	cases := []struct {
		body        map[string]any
		code, param string
	}{
		{subscriptionBody(map[string]any{"payer": nil}), "parameter_missing", "payer"},
		{subscriptionBody(map[string]any{"payer": map[string]any{"name": "Ana", "document": "111.111.111-11"}}), "document_invalid", "payer.document"},
		{subscriptionBody(map[string]any{"interval": "daily"}), "parameter_invalid", "interval"},
		{subscriptionBody(map[string]any{"journey": "email"}), "parameter_invalid", "journey"},
		{subscriptionBody(map[string]any{"start_date": "2026-03-01"}), "parameter_invalid", "start_date"},
		{subscriptionBody(map[string]any{"end_date": "2026-03-10"}), "parameter_invalid", "end_date"},
		{subscriptionBody(map[string]any{"max_amount_cents": 100}), "parameter_invalid", "amount_cents"},
		{subscriptionBody(map[string]any{"amount_cents": nil, "max_amount_cents": 100}), "parameter_invalid", "amount_cents"},
		{subscriptionBody(map[string]any{"retry_policy": "always"}), "parameter_invalid", "retry_policy"},
		{subscriptionBody(map[string]any{"contract": strings.Repeat("x", 36)}), "parameter_too_long", "contract"},
		{subscriptionBody(map[string]any{"payer": map[string]any{"name": "Ana", "document": "52998224725", "bank_account": map[string]any{"ispb": "0000000"}}}),
			"parameter_missing", "payer.bank_account.number"},
		{subscriptionBody(map[string]any{"payer": map[string]any{"name": "Ana", "document": "52998224725",
			"bank_account": map[string]any{"ispb": "0000000", "number": "12"}}}), "parameter_invalid", "payer.bank_account.ispb"},
		{subscriptionBody(map[string]any{"payer": map[string]any{"name": "Ana", "document": "52998224725",
			"bank_account": map[string]any{"ispb": "00000000", "branch": "12345", "number": "12"}}}), "parameter_too_long", "payer.bank_account.branch"},
		{subscriptionBody(map[string]any{"payer": map[string]any{"name": "Ana", "document": "52998224725",
			"bank_account": map[string]any{"ispb": "00000000", "number": "12-3"}}}), "parameter_invalid", "payer.bank_account.number"},
		{subscriptionBody(map[string]any{"payer": map[string]any{"name": "Ana", "document": "52998224725",
			"bank_account": map[string]any{"ispb": "00000000", "number": "12", "pix": "x"}}}), "parameter_unknown", "payer.bank_account.pix"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: c.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.body, r.Body)
		require.Equal(t, c.code, r.ErrorCode(t), "%s", r.Body)
		require.Equal(t, c.param, r.ErrorParam(t), "%s", r.Body)
	}
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: subscriptionBody(nil)})
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	require.Equal(t, "live_mode_disabled", r.ErrorCode(t), "no PSP configured")
	require.Equal(t, http.StatusNotFound, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/sub_nope", Key: s.TestKey}).Status)
}

// The service makes a fixed subscription's cycles ahead of their due dates
// (store.CycleLeadDays), one at a time, and ends the subscription past
// its end date.
func TestSubscriptionCyclesAreMadeAheadOfTheirDates(t *testing.T) {
	t.Parallel()
	clock := newMovableClock("2026-03-02")
	set := clock.set
	s := webtest.New(t, webtest.WithClock(clock.now))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: subscriptionBody(map[string]any{
		"journey": "authorization_only", "start_date": "2026-03-20", "end_date": "2026-05-19", "retry_policy": nil})})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	makeCycles := func() int { return maintenance.MakeDueCycles(context.Background(), s.Store, discardLogger()) }
	cycles := func() int {
		return len(s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?subscription=" + id, Key: s.TestKey}).JSON(t)["data"].([]any))
	}
	require.Zero(t, makeCycles(), "not authorized yet: nothing to make")
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/authorize", Key: s.TestKey}).Status)
	require.Zero(t, makeCycles(), "2026-03-20 is more than 10 days away")
	set("2026-03-10")
	require.Equal(t, 1, makeCycles(), "10 days ahead: cycle 1")
	require.Zero(t, makeCycles(), "once")
	set("2026-04-15")
	require.Zero(t, makeCycles(), "cycle 1 is still open: cycle 2 waits for it")
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/run_cycle", Key: s.TestKey}).Status)
	require.Equal(t, 1, makeCycles(), "cycle 2, due 2026-04-20")
	require.Equal(t, 2, cycles())
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/run_cycle", Key: s.TestKey}).Status)
	set("2026-05-15")
	require.Equal(t, 1, makeCycles(), "cycle 3 (2026-05-20) is past the end date: the subscription expires")
	sub := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/" + id, Key: s.TestKey}).JSON(t)
	require.Equal(t, "expired", sub["status"])
	require.Equal(t, 2, cycles())
	require.Equal(t, []string{"subscription.created", "subscription.activated", "subscription.expired"}, s.EventTypes(id))
}

// A cycle nobody settles by its last day expires with the other overdue
// payments, its cycle failed; the next one can then be made.
func TestUnsettledCycleExpiresFailed(t *testing.T) {
	t.Parallel()
	clock := newMovableClock("2026-03-02")
	set := clock.set
	s := webtest.New(t, webtest.WithClock(clock.now))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: subscriptionBody(map[string]any{
		"journey": "authorization_only", "retry_policy": nil})})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/authorize", Key: s.TestKey}).Status)
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + id + "/cycles", Key: s.TestKey})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	cycle := r.JSON(t)
	require.Equal(t, "2026-03-11T03:00:00.000Z", cycle["expires_at"], "no retries: its due date is its last day")
	set("2026-03-11")
	require.Equal(t, 1, maintenance.ExpireOverdue(context.Background(), s.Store, discardLogger()))
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + cycle["id"].(string), Key: s.TestKey}).JSON(t)
	require.Equal(t, "expired", got["status"])
	require.Equal(t, "failed", got["cycle"].(map[string]any)["status"])
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + id + "/cycles", Key: s.TestKey})
	require.Equal(t, http.StatusCreated, r.Status, "the next cycle: %s", r.Body)
	require.Equal(t, "2026-04-10", r.JSON(t)["cycle"].(map[string]any)["due_date"])
}

// Cycles made before cycles carried their subscriber get them from
// migration 046, and count for them in Clientes, as the fold counts new
// ones: the migration's statements, run on cycles as they were.
func TestMigrationGivesOldCyclesTheirSubscriber(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	ctx := t.Context()
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: subscriptionBody(nil)})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/authorize", Key: s.TestKey}).Status)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + id + "/run_cycle", Key: s.TestKey,
		Body: map[string]any{"outcome": "pay"}}).Status)
	_, err := s.Store.FoldRollups(ctx)
	require.NoError(t, err)
	scope := store.Scope{AccountID: s.Account.ID}
	payers := func() []store.Payer {
		t.Helper()
		list, _, err := s.Store.ListPayers(ctx, store.PayerListParams{Scope: scope, Limit: 10})
		require.NoError(t, err)
		return list
	}
	folded := payers()
	require.Len(t, folded, 1)

	// As they were: no customer, so no payer.
	_, err = s.DB.ExecContext(ctx, `UPDATE payments SET customer = NULL WHERE subscription_id = ?`, id)
	require.NoError(t, err)
	_, err = s.DB.ExecContext(ctx, `DELETE FROM customers WHERE account_id = ?`, s.Account.ID)
	require.NoError(t, err)
	migration, err := fs.ReadFile(store.MigrationFiles(), "migrations/046_cycles_carry_their_subscriber.tx.up.sql")
	require.NoError(t, err)
	_, err = s.DB.ExecContext(ctx, string(migration))
	require.NoError(t, err)

	require.Equal(t, folded, payers(), "the migration counts them as the fold did")
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?subscription=" + id, Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 2)
	for _, p := range list {
		require.Equal(t, map[string]any{"name": "Ana Lima", "email": nil, "document": "52998224725", "phone": nil}, p.(map[string]any)["customer"])
	}
}
