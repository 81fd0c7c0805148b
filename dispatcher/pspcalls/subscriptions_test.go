package pspcalls_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/dispatcher/maintenance"
	"payments/pix"
	"payments/pix/apipix"
	"payments/pix/apipix/sandboxtest"
	"payments/pix/calendar"
	"payments/web/webtest"
)

// movableClock is the service's clock in a test that moves the sandbox's:
// real time, moved to noon (Brasília) of a date.
type movableClock struct{ offset atomic.Int64 }

func (c *movableClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

func (c *movableClock) set(d calendar.Date) {
	c.offset.Store(int64(time.Until(d.Start().Add(12 * time.Hour))))
}

// Pix Automático live through the API and the PSP sandbox: a monthly
// subscription on the first-payment journey, approved (and its first cycle
// paid) at the payer's bank; three cycles come due as the clocks move and
// are debited, one refused for balance and paid on its retry; the payer
// cancels in their bank. Every webhook arrives once, in the order its
// events happened; every request to the PSP conforms to API Pix 2.9.0.
func TestLiveSubscriptionThroughThePSP(t *testing.T) {
	t.Parallel()
	clock := new(movableClock)
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithClock(clock.Now))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dumpCalls(t, s))
			t.Log(s.PSP.Logs())
		}
	})
	recv := webtest.NewReceiver(t, nil)
	hook := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.LiveKey, Body: map[string]any{"url": recv.URL,
		"events": []string{"subscription.created", "subscription.activated", "subscription.canceled", "payment.created",
			"payment.paid", "payment.retry_scheduled", "payment.failed"}}})
	require.Equal(t, http.StatusCreated, hook.Status, "%s", hook.Body)
	ctx := t.Context()
	deliver := func() { // one at a time: arrival order is the queue's order
		for s.Dispatcher.RunOnce(ctx, 1) > 0 {
		}
	}
	get := func(path string) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "GET", Path: path, Key: s.LiveKey})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	waitFor := func(path, field, want string) map[string]any {
		t.Helper()
		var last map[string]any
		require.Eventually(t, func() bool {
			last = get(path)
			return last[field] == want
		}, 45*time.Second, 20*time.Millisecond, "%s never had %s %s: %v", path, field, want, func() any { return last })
		return last
	}

	today := calendar.Today(time.Now())
	start := today.AddDays(3)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: map[string]any{
		"payer": map[string]any{"name": "Ana Lima", "document": "529.982.247-25"}, "contract": "ALUNO-0042",
		"description": "Mensalidade escolar", "interval": "monthly", "start_date": start.String(), "amount_cents": 49000,
		"retry_policy": "three_in_seven_days", "journey": "authorization_with_first_payment"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	sub := r.JSON(t)
	id := sub["id"].(string)
	require.Equal(t, "awaiting_authorization", sub["status"], "the PSP has it: %v", sub)
	require.Equal(t, sub, s.EventObject(s.LiveKey, id, "subscription.created"), "the event says what the API answered")
	recID := sub["rec_id"].(string)
	require.Regexp(t, `^RR99999999\d{8}[0-9A-Za-z]{11}$`, recID, "the PSP named it, retries allowed")
	code, err := pix.Decode(sub["br_code"].(string))
	require.NoError(t, err)
	require.Contains(t, code.MerchantAccount["25"], "/qr/v2/", "the QR pays the PSP's charge")
	require.Equal(t, "Loja Teste", code.Fields["59"], "and names the merchant, not the platform")
	require.Contains(t, code.Recurrence["25"], "/qr/v2/rec/", "and authorizes the PSP's recurrence (QR composto)")
	rec, err := s.PSP.Client.GetRec(ctx, recID)
	require.NoError(t, err)
	require.Equal(t, apipix.RecVinculo{Objeto: "Mensalidade escolar", Contrato: "ALUNO-0042",
		Devedor: apipix.RecDevedor{CPF: "52998224725", Nome: "Ana Lima"}}, rec.Vinculo)
	require.Equal(t, apipix.RecCalendario{DataInicial: start.String(), Periodicidade: "MENSAL"}, rec.Calendario)
	first := sub["first_payment"].(string)
	firstPayment := get("/api/v1/payments/" + first)
	require.Equal(t, sub["br_code"], firstPayment["pix"].(map[string]any)["br_code"], "the first cycle's code is the same QR")
	require.Equal(t, firstPayment, s.EventObject(s.LiveKey, first, "payment.created"), "announced as the API answers it")

	// The payer scans it: their bank shows the authorization, and approving
	// pays the first cycle.
	s.PSP.AnswerRec(recID, "approve")
	waitFor("/api/v1/payments/"+first, "status", "paid")
	sub = waitFor("/api/v1/subscriptions/"+id, "status", "active")
	require.Equal(t, start.AddMonths(1).String(), sub["next_cycle_date"])
	deliver()

	// A cycle comes due: made 5 days ahead (the PSP takes it 2 to 10 days
	// ahead), debited on its date by the payer's bank.
	cycle := func(n int, short bool) map[string]any {
		t.Helper()
		due := start.AddMonths(n - 1)
		clock.set(due.AddDays(-5))
		s.PSP.SetDate(due.AddDays(-5).String())
		require.Equal(t, 1, maintenance.MakeDueCycles(ctx, s.Store, slog.New(slog.DiscardHandler)), "cycle %d made", n)
		list := get("/api/v1/payments?subscription=" + id + "&limit=1")["data"].([]any)
		p := list[0].(map[string]any)
		require.Equal(t, due.String(), p["cycle"].(map[string]any)["due_date"])
		txid := p["correlation_id"].(string)
		require.Eventually(t, func() bool { return s.PSP.State().CobRs[txid] == apipix.CobRActive }, 15*time.Second, 20*time.Millisecond,
			"cycle %d's charge at the PSP", n)
		s.PSP.SetBalanceShort(short)
		clock.set(due)
		s.PSP.SetDate(due.String())
		return p
	}
	c2 := cycle(2, false)
	waitFor("/api/v1/payments/"+c2["id"].(string), "status", "paid")
	deliver()

	c3 := cycle(3, true)
	c3ID := c3["id"].(string)
	var retried map[string]any
	require.Eventually(t, func() bool {
		retried = get("/api/v1/payments/" + c3ID)
		return retried["cycle"].(map[string]any)["status"] == "retrying"
	}, 45*time.Second, 20*time.Millisecond, "cycle 3's refused debit")
	due3 := start.AddMonths(2)
	require.Equal(t, map[string]any{"number": 3.0, "due_date": due3.String(), "status": "retrying", "attempts": 1.0,
		"retry_policy": "three_in_seven_days", "next_attempt_date": due3.AddDays(1).String(), "failure_reason": "insufficient_balance"},
		retried["cycle"])
	require.Eventually(t, func() bool {
		cobr, err := s.PSP.Client.GetCobR(ctx, c3["correlation_id"].(string))
		return err == nil && len(cobr.Tentativas) == 2 && cobr.Tentativas[1].Tipo == "RIFL"
	}, 15*time.Second, 20*time.Millisecond, "the retry asked of the PSP")
	deliver()
	s.PSP.SetBalanceShort(false)
	clock.set(due3.AddDays(1))
	s.PSP.SetDate(due3.AddDays(1).String())
	paid3 := waitFor("/api/v1/payments/"+c3ID, "status", "paid")
	require.Equal(t, "paid", paid3["cycle"].(map[string]any)["status"], "paid on its second try")
	deliver()

	c4 := cycle(4, false)
	waitFor("/api/v1/payments/"+c4["id"].(string), "status", "paid")
	deliver()

	// The payer cancels in their bank.
	s.PSP.AnswerRec(recID, "cancel")
	sub = waitFor("/api/v1/subscriptions/"+id, "status", "canceled")
	require.Equal(t, "payer", sub["canceled_by"])
	deliver()

	require.Equal(t, []string{"subscription.created", "subscription.activated", "subscription.canceled"}, s.EventTypes(id))
	require.Equal(t, []string{"payment.created", "payment.retry_scheduled", "payment.paid"}, s.EventTypes(c3ID))
	bal := get("/api/v1/balance")
	require.EqualValues(t, 4*49000, bal["available_cents"].(float64)+4*firstPayment["fee_cents"].(float64), "four cycles received, less their fees")
	s.LedgerMatchesBalance(liveScope(s))

	// Every event reached the webhook once, in the order it happened.
	var want []string
	require.NoError(t, s.DB.NewRaw(`SELECT id FROM events WHERE livemode AND type IN (?) ORDER BY created_at, id`,
		bun.List([]string{"subscription.created", "subscription.activated", "subscription.canceled", "payment.created", "payment.paid",
			"payment.retry_scheduled", "payment.failed"})).Scan(ctx, &want))
	var got []string
	for _, req := range recv.Requests() {
		var e struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(req.Body, &e))
		got = append(got, e.ID)
	}
	require.Equal(t, want, got)
	require.Len(t, want, 3+2+2+3+2, "the subscription's three, and the cycles' created and paid (and the retry)")
	require.Zero(t, s.PSP.State().Counts["nonconforming"], "every request conformed to API Pix 2.9.0")
}

// The request pushed to the payer's bank (payer_bank_request): live, it
// needs the payer's account; the PSP gets the recurrence and the request
// (solicrec), and the payer refusing it in their bank rejects the
// subscription. A subscription authorized by QR alone whose callbacks are
// all lost is found active by the reconciler, and canceled by its
// receiver it is canceled at the PSP too.
func TestLiveSubscriptionJourneysAndLostCallbacks(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dumpCalls(t, s))
			t.Log(s.PSP.Logs())
		}
	})
	ctx := t.Context()
	body := func(journey string, payer map[string]any) map[string]any {
		return map[string]any{"payer": payer, "contract": "PLANO-7", "interval": "weekly",
			"start_date": calendar.Today(time.Now()).AddDays(4).String(), "max_amount_cents": 15000, "journey": journey}
	}
	ana := map[string]any{"name": "Ana Lima", "document": "52998224725"}
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: body("payer_bank_request", ana)})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "payer.bank_account", r.ErrorParam(t))

	ana["bank_account"] = map[string]any{"ispb": "60701190", "branch": "0001", "number": "123456"}
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: body("payer_bank_request", ana)})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	pushed := r.JSON(t)
	require.Equal(t, "awaiting_authorization", pushed["status"], "the request reached the payer's bank")
	require.Equal(t, pushed, s.EventObject(s.LiveKey, pushed["id"].(string), "subscription.created"), "the event says what the API answered")
	require.Nil(t, pushed["br_code"])
	require.Equal(t, map[string]any{"ispb": "60701190", "branch": "0001", "number": "123456"}, pushed["payer"].(map[string]any)["bank_account"])
	require.Equal(t, 1, s.PSP.State().Counts["solicrec"])
	s.PSP.AnswerRec(pushed["rec_id"].(string), "reject")
	require.Eventually(t, func() bool {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/" + pushed["id"].(string), Key: s.LiveKey}).JSON(t)["status"] == "rejected"
	}, 15*time.Second, 20*time.Millisecond)

	// Canceled by its receiver before the payer answered: the request is
	// withdrawn from the payer's bank and the recurrence canceled.
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: body("payer_bank_request", ana)})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	withdrawn := r.JSON(t)
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + withdrawn["id"].(string) + "/cancel", Key: s.LiveKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Eventually(t, func() bool {
		st := s.PSP.State()
		canceled := 0
		for _, status := range st.SolicRecs {
			if status == apipix.SolicRecCanceled {
				canceled++
			}
		}
		return canceled == 1 && st.Recs[withdrawn["rec_id"].(string)] == apipix.RecCanceled
	}, 15*time.Second, 20*time.Millisecond, "withdrawn at the PSP: %v", func() any { return s.PSP.State().SolicRecs })

	// Left unanswered past its expiry (seven days), it expires.
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: body("payer_bank_request", ana)})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	unanswered := r.JSON(t)
	s.PSP.SetDate(calendar.Today(time.Now()).AddDays(8).String())
	require.Eventually(t, func() bool {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/" + unanswered["id"].(string), Key: s.LiveKey}).JSON(t)["status"] == "expired"
	}, 15*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"subscription.created", "subscription.expired"}, s.EventTypes(unanswered["id"].(string)))
	s.PSP.SetDate("")

	// Every callback lost: the reconciler reads the recurrence.
	s.PSP.SetFaults(sandboxtest.Faults{DropCallbacks: 1})
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: body("authorization_only", ana)})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	qr := r.JSON(t)
	require.Equal(t, qr, s.EventObject(s.LiveKey, qr["id"].(string), "subscription.created"), "the event says what the API answered")
	code, err := pix.Decode(qr["br_code"].(string))
	require.NoError(t, err)
	require.Empty(t, code.Fields["54"], "no amount: the scan only authorizes")
	require.Contains(t, code.Recurrence["25"], "/qr/v2/rec/")
	s.PSP.AnswerRec(qr["rec_id"].(string), "approve")
	require.NoError(t, s.PSP.Worker.ReconcileRecurrences(ctx))
	path := "/api/v1/subscriptions/" + qr["id"].(string)
	require.Eventually(t, func() bool {
		return s.Do(webtest.Request{Method: "GET", Path: path, Key: s.LiveKey}).JSON(t)["status"] == "active"
	}, 15*time.Second, 20*time.Millisecond, "found by the reconciler")

	r = s.Do(webtest.Request{Method: "POST", Path: path + "/cancel", Key: s.LiveKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "receiver", r.JSON(t)["canceled_by"])
	require.Eventually(t, func() bool { return s.PSP.State().Recs[qr["rec_id"].(string)] == apipix.RecCanceled }, 15*time.Second, 20*time.Millisecond,
		"canceled at the PSP")
	require.Equal(t, []string{"subscription.created", "subscription.activated", "subscription.canceled"}, s.EventTypes(qr["id"].(string)))
	require.Zero(t, s.PSP.State().Counts["nonconforming"], "every request conformed to API Pix 2.9.0")
}

// While the PSP fails half its answers, after doing the work, a
// subscription and its cycle are still registered once each: a retry finds
// the recurrence through its location and the charge by its txid.
func TestLiveSubscriptionThroughAFlakyPSPIsRegisteredOnce(t *testing.T) {
	t.Parallel()
	clock := new(movableClock)
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{ChargeWait: 200 * time.Millisecond}), webtest.WithClock(clock.Now))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dumpCalls(t, s))
		}
	})
	start := calendar.Today(time.Now()).AddDays(4)
	s.PSP.SetFaults(sandboxtest.Faults{ErrorRate: 0.5, ErrorsAfterProcessing: true})
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: map[string]any{
		"payer": map[string]any{"name": "Ana Lima", "document": "529.982.247-25"}, "contract": "ALUNO-0042", "interval": "monthly",
		"start_date": start.String(), "amount_cents": 4990, "journey": "authorization_only"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	// The retries grow to minutes apart; the clock jumps to each one's
	// time, so that a run of lost answers (each attempt makes two or three
	// calls, half of them failing) is tried again within the second.
	hurry := func() {
		var next time.Time
		require.NoError(t, s.DB.NewRaw("SELECT coalesce(max(next_attempt_at), now()) FROM psp_calls WHERE status = 'pending'").
			Scan(t.Context(), &next))
		if ahead := next.Sub(clock.Now()); ahead > 0 {
			clock.offset.Add(int64(ahead))
		}
	}
	var sub map[string]any
	require.Eventually(t, func() bool {
		hurry()
		sub = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/" + id, Key: s.LiveKey}).JSON(t)
		return sub["status"] == "awaiting_authorization"
	}, 90*time.Second, 50*time.Millisecond, "registered despite the faults")
	state := s.PSP.State()
	require.Len(t, state.Recs, 1, "one recurrence at the PSP, however many answers were lost")

	s.PSP.SetFaults(sandboxtest.Faults{})
	s.PSP.AnswerRec(sub["rec_id"].(string), "approve")
	require.Eventually(t, func() bool {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/" + id, Key: s.LiveKey}).JSON(t)["status"] == "active"
	}, 15*time.Second, 20*time.Millisecond)
	s.PSP.SetFaults(sandboxtest.Faults{ErrorRate: 0.5, ErrorsAfterProcessing: true})
	require.Equal(t, 1, maintenance.MakeDueCycles(t.Context(), s.Store, slog.New(slog.DiscardHandler)))
	cycle := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?subscription=" + id, Key: s.LiveKey}).JSON(t)["data"].([]any)[0].(map[string]any)
	require.Eventually(t, func() bool {
		hurry()
		var state string
		err := s.DB.NewRaw("SELECT charge_state FROM payments WHERE id = ?", cycle["id"]).Scan(t.Context(), &state)
		return err == nil && state == "registered"
	}, 90*time.Second, 50*time.Millisecond, "the cycle's charge registered despite the faults")
	require.Len(t, s.PSP.State().CobRs, 1, "one recurring charge")
	s.PSP.SetFaults(sandboxtest.Faults{})
	clock.set(start)
	s.PSP.SetDate(start.String())
	s.WaitForPayment(s.LiveKey, cycle["id"].(string), "paid", 15*time.Second)
	require.Zero(t, s.PSP.State().Counts["nonconforming"])
}
