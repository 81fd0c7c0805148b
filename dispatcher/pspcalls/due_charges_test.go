package pspcalls_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/pix/apipix"
	"payments/pix/calendar"
	"payments/web/webtest"
)

// nextWeekdayHoliday is the first national holiday on a weekday at least
// days from today: a due date whose neighbourhood has a holiday, weekends
// and the day after.
func nextWeekdayHoliday(days int) calendar.Date {
	d := calendar.Today(time.Now()).AddDays(days)
	for calendar.Holiday(d) == "" || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDays(1)
	}
	return d
}

// dueTerms are charges with every modality API Pix has: multa 1-2,
// juros 1-8, desconto 1-6, abatimento 1-2, due on due.
func dueTerms(due calendar.Date) []map[string]any {
	until := func(n int) string { return due.AddDays(-n).String() }
	return []map[string]any{
		{"fine": map[string]any{"percent": "2.00"}, "interest": map[string]any{"percent_per_month": "1.00"},
			"discounts": map[string]any{"fixed": []any{map[string]any{"until": until(7), "percent": "5.00"}, map[string]any{"until": until(0), "percent": "2.50"}}}},
		{"fine": map[string]any{"amount_cents": 1500}, "interest": map[string]any{"amount_cents_per_day": 37, "business_days": true},
			"discounts": map[string]any{"per_day_early": map[string]any{"amount_cents": 45}, "business_days": true}, "abatement": map[string]any{"amount_cents": 990}},
		{"interest": map[string]any{"percent_per_day": "0.07", "business_days": true},
			"discounts": map[string]any{"per_day_early": map[string]any{"percent": "0.15"}}, "abatement": map[string]any{"percent": "3.33"}},
		{"interest": map[string]any{"percent_per_year": "13.50"},
			"discounts": map[string]any{"fixed": []any{map[string]any{"until": until(9), "amount_cents": 2000}, map[string]any{"until": until(3), "amount_cents": 800}}}},
		{"fine": map[string]any{"percent": "1.25"}, "interest": map[string]any{"percent_per_month": "2.10", "business_days": true},
			"discounts": map[string]any{"per_day_early": map[string]any{"percent": "0.09"}, "business_days": true}},
		{"interest": map[string]any{"percent_per_year": "24.00", "business_days": true}, "abatement": map[string]any{"percent": "0.50"}},
		{"fine": map[string]any{"amount_cents": 99}, "interest": map[string]any{"amount_cents_per_day": 13},
			"discounts": map[string]any{"per_day_early": map[string]any{"amount_cents": 17}}},
		{"interest": map[string]any{"percent_per_day": "0.33"}},
	}
}

func createLiveDueCharge(s *webtest.Server, i int, due calendar.Date, terms map[string]any) map[string]any {
	body := map[string]any{"amount_cents": 123_457 + i*1111, "external_id": fmt.Sprintf("fatura-%d", i), "description": "Fatura",
		"due_date": due.String(), "days_after_due": 12,
		"customer": map[string]any{"name": "Maria Souza", "email": "maria@example.com", "document": "529.982.247-25"}}
	for k, v := range terms {
		body[k] = v
	}
	return s.CreateLivePayment(body)
}

// The service and the PSP sandbox agree on what is owed, for every
// modality, on 30 dates around the due date: weekends, a national
// holiday, before, on and after it, and past the last payable day.
func TestLiveDueChargesAgreeWithThePSPOnEveryDate(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{MTLS: true}))
	due := nextWeekdayHoliday(13)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(s.PSP.Logs())
		}
	})
	var charges []map[string]any
	for i, terms := range dueTerms(due) {
		charges = append(charges, createLiveDueCharge(s, i, due, terms))
	}
	cobv, err := s.PSP.Client.GetCobV(t.Context(), charges[1]["correlation_id"].(string))
	require.NoError(t, err)
	require.Equal(t, due.String(), cobv.Calendario.DataDeVencimento)
	require.Equal(t, 12, *cobv.Calendario.ValidadeAposVencimento)
	require.Equal(t, &apipix.ModalidadeValor{Modalidade: 5, ValorPerc: "0.37"}, cobv.Valor.Juros, "an amount per business day")
	require.Equal(t, &apipix.Desconto{Modalidade: 4, ValorPerc: "0.45"}, cobv.Valor.Desconto)
	require.Equal(t, &apipix.ModalidadeValor{Modalidade: 1, ValorPerc: "9.90"}, cobv.Valor.Abatimento)
	renamed, err := pix.WithMerchantName(cobv.PixCopiaECola, "Loja Teste")
	require.NoError(t, err)
	require.Equal(t, renamed, charges[1]["pix"].(map[string]any)["br_code"], "the PSP's code, naming the merchant")
	require.True(t, strings.HasPrefix(cobv.SolicitacaoPagador, "Loja Teste"), "the payer's bank names the merchant: %q", cobv.SolicitacaoPagador)

	t.Cleanup(func() { s.PSP.SetDate("") })
	for n := -12; n < 18; n++ {
		date := due.AddDays(n)
		s.PSP.SetDate(date.String())
		for i, p := range charges {
			payload := s.PSP.DuePayload(p["correlation_id"].(string))
			require.Equal(t, date.String(), payload.Date)
			ours := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string) + "/amount_due?date=" + date.String(),
				Key: s.LiveKey}).JSON(t)
			require.Equal(t, apipix.FormatValor(int64(ours["amount_due_cents"].(float64))), payload.Valor["final"],
				"charge %d on %s (%s %s): ours %v, the PSP's %v", i, date, date.Weekday(), calendar.Holiday(date), ours, payload.Valor)
			require.Equal(t, ours["payable"], payload.Payable, "charge %d on %s", i, date)
		}
	}
	require.Zero(t, s.PSP.State().Counts["nonconforming"], "every request conformed to API Pix 2.9.0: %s", s.PSP.Logs())
}

func TestLiveDueChargePaidLateOrEarlyAtThePayersBank(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{MTLS: true}), webtest.WithRunningDispatcher())
	recv := liveWebhook(t, s, "payment.created", "payment.paid")
	due := nextWeekdayHoliday(10)
	terms := dueTerms(due)
	late := createLiveDueCharge(s, 0, due, terms[0])
	early := createLiveDueCharge(s, 3, due, terms[3])
	t.Cleanup(func() { s.PSP.SetDate("") })

	amountDue := func(p map[string]any, date calendar.Date) map[string]any {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string) + "/amount_due?date=" + date.String(), Key: s.LiveKey}).JSON(t)
	}
	// Late: two days after the first business day after the due date.
	lateDay := calendar.NextBusinessDay(due).AddDays(2)
	owed := amountDue(late, lateDay)
	require.Positive(t, owed["fine_cents"])
	require.Positive(t, owed["interest_cents"])
	s.PSP.SetDate(lateDay.String())
	paid := s.PSP.PayCode(late["pix"].(map[string]any)["br_code"].(string))
	require.Equal(t, apipix.FormatValor(int64(owed["amount_due_cents"].(float64))), paid.Valor, "the payer's bank paid what was owed that day")
	got := s.WaitForPayment(s.LiveKey, late["id"].(string), "paid", 10*time.Second)
	require.Equal(t, owed["amount_due_cents"], got["amount_paid_cents"])
	require.EqualValues(t, int64(owed["amount_due_cents"].(float64))-int64(got["fee_cents"].(float64)), got["net_cents"])

	// Early: nine days before, the R$ 20,00 discount.
	earlyDay := due.AddDays(-9)
	owed = amountDue(early, earlyDay)
	require.EqualValues(t, 2000, owed["discount_cents"])
	s.PSP.SetDate(earlyDay.String())
	paid = s.PSP.PayCode(early["pix"].(map[string]any)["br_code"].(string))
	require.Equal(t, apipix.FormatValor(int64(owed["amount_due_cents"].(float64))), paid.Valor)
	got = s.WaitForPayment(s.LiveKey, early["id"].(string), "paid", 10*time.Second)
	require.Equal(t, owed["amount_due_cents"], got["amount_paid_cents"])

	require.Len(t, recv.WaitFor(4, 10*time.Second), 4, "payment.created and payment.paid of each")
	s.LedgerMatchesBalance(liveScope(s))
	bal := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.LiveKey}).JSON(t)
	require.EqualValues(t, got["net_cents"].(float64)+s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + late["id"].(string), Key: s.LiveKey}).JSON(t)["net_cents"].(float64),
		bal["available_cents"])
	require.Zero(t, s.PSP.State().Counts["nonconforming"], "%s", s.PSP.Logs())
}

func TestLiveBatchRegistersItsDueChargesTogether(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{MTLS: true}))
	var b map[string]any
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sandbox: %s\nservice: %s", s.PSP.Logs(), s.Logs.String())
		}
	})
	due := calendar.Today(time.Now()).AddDays(20)
	var items []any
	for i := range 40 {
		items = append(items, map[string]any{"amount_cents": 10_000 + i, "external_id": fmt.Sprintf("aluno-%02d", i), "due_date": due.String(),
			"days_after_due": 5, "fine": map[string]any{"percent": "2.00"}, "interest": map[string]any{"percent_per_month": "1.00"},
			"customer": map[string]any{"name": fmt.Sprintf("Aluno %d", i), "email": "familia@example.com", "document": "529.982.247-25"}})
	}
	items = append(items, map[string]any{"amount_cents": 5_000, "external_id": "avulsa"}) // an immediate charge, by cob
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.LiveKey, Body: map[string]any{"payments": items}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	require.Eventually(t, func() bool {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payment_batches/" + id, Key: s.LiveKey})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		b = r.JSON(t)
		return b["counts"].(map[string]any)["registered"] == float64(len(items))
	}, 15*time.Second, 50*time.Millisecond, "every charge registered")
	for _, item := range b["items"].([]any) {
		p := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + item.(map[string]any)["payment_id"].(string), Key: s.LiveKey}).JSON(t)
		code, err := pix.Decode(p["pix"].(map[string]any)["br_code"].(string))
		require.NoError(t, err, "payable with the PSP's code")
		require.NotEmpty(t, code.MerchantAccount["25"])
	}
	st := s.PSP.State()
	require.Equal(t, 1, st.Counts["lotecobv"], "one PUT /lotecobv for the due-date charges")
	require.Equal(t, 40, st.Counts["cobv"])
	require.Equal(t, 1, st.Counts["cob"], "the immediate charge by PUT /cob")
	require.Zero(t, st.Counts["nonconforming"], "%s", s.PSP.Logs())
}
