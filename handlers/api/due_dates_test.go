package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/pix/calendar"
	"payments/web/webtest"
)

// noonOf is noon of date in Brasília.
func noonOf(date string) func() time.Time {
	d, _ := calendar.ParseDate(date)
	at := d.Start().Add(12 * time.Hour)
	return func() time.Time { return at }
}

var ana = map[string]any{"name": "Ana Lima", "email": "ana@example.com", "document": "529.982.247-25"}

func dueBody(extra map[string]any) map[string]any {
	b := map[string]any{"amount_cents": 100000, "external_id": "mensalidade-03", "due_date": "2026-03-10", "days_after_due": 30,
		"customer": ana, "fine": map[string]any{"percent": "2.00"}, "interest": map[string]any{"percent_per_month": "1.00"},
		"discounts": map[string]any{"fixed": []any{
			map[string]any{"until": "2026-03-05", "percent": "5.00"}, map[string]any{"until": "2026-03-10", "percent": "2.00"}}}}
	return merged(b, extra)
}

func TestDueDateChargeShowsItsTermsAndWhatIsOwedEachDay(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	p := s.CreatePayment(dueBody(nil))
	id := p["id"].(string)

	require.Equal(t, "2026-03-10", p["due_date"])
	require.EqualValues(t, 30, p["days_after_due"])
	terms, err := json.Marshal(map[string]any{"fine": p["fine"], "interest": p["interest"], "discounts": p["discounts"], "abatement": p["abatement"]})
	require.NoError(t, err)
	require.JSONEq(t, `{"fine":{"percent":"2.00"},"interest":{"percent_per_month":"1.00","business_days":false},
		"discounts":{"fixed":[{"until":"2026-03-05","percent":"5.00"},{"until":"2026-03-10","percent":"2.00"}]},"abatement":null}`, string(terms))
	require.Equal(t, "2026-04-10T03:00:00.000Z", p["expires_at"], "payable through 30 days after the due date, Brasília")
	require.Nil(t, p["amount_paid_cents"])
	code, err := pix.Decode(p["pix"].(map[string]any)["br_code"].(string))
	require.NoError(t, err)
	require.NotContains(t, code.Fields, "54", "the amount is the payer's bank's to compute, by the day")

	due := func(query string) string {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id + "/amount_due" + query, Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return string(r.Body)
	}
	require.JSONEq(t, `{"object":"amount_due","date":"2026-03-02","amount_cents":100000,"abatement_cents":0,"discount_cents":5000,
		"fine_cents":0,"interest_cents":0,"amount_due_cents":95000,"payable":true}`, due(""), "today, Brasília, by default")
	require.JSONEq(t, `{"object":"amount_due","date":"2026-03-06","amount_cents":100000,"abatement_cents":0,"discount_cents":2000,
		"fine_cents":0,"interest_cents":0,"amount_due_cents":98000,"payable":true}`, due("?date=2026-03-06"))
	require.JSONEq(t, `{"object":"amount_due","date":"2026-03-11","amount_cents":100000,"abatement_cents":0,"discount_cents":0,
		"fine_cents":2000,"interest_cents":33,"amount_due_cents":102033,"payable":true}`, due("?date=2026-03-11"))
	require.JSONEq(t, `{"object":"amount_due","date":"2026-04-10","amount_cents":100000,"abatement_cents":0,"discount_cents":0,
		"fine_cents":2000,"interest_cents":1033,"amount_due_cents":103033,"payable":false}`, due("?date=2026-04-10"))
	// By external_id too; a bad date or parameter is a 400 naming it.
	require.Contains(t, string(s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/mensalidade-03/amount_due?date=2026-03-11", Key: s.TestKey}).Body), `"amount_due_cents":102033`)
	for query, param := range map[string]string{"?date=11/03/2026": "date", "?when=2026-03-11": "when"} {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id + "/amount_due" + query, Key: s.TestKey})
		require.Equal(t, http.StatusBadRequest, r.Status)
		require.Equal(t, param, r.ErrorParam(t))
	}

	// Paid late, as of a date: the fine and the interest are what it received.
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey,
		Body: map[string]any{"date": "2026-03-11"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	paid := r.JSON(t)
	require.Equal(t, "paid", paid["status"])
	require.EqualValues(t, 102033, paid["amount_paid_cents"])
	require.EqualValues(t, 100000, paid["amount_cents"], "the charge's amount stays as given")
	require.EqualValues(t, 102033-paid["fee_cents"].(float64), paid["net_cents"])
	require.EqualValues(t, 0, paid["amount_due_cents"], "nothing is owed once paid")
	bal := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).JSON(t)
	require.EqualValues(t, paid["net_cents"], bal["available_cents"], "the ledger credits what was received")

	// A full refund gives back all that was received.
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + id + "/refund", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	refunded := r.JSON(t)
	require.EqualValues(t, 102033, refunded["amount_refunded_cents"])
}

func TestDueDateChargePaidEarlyOrTooLate(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	early := s.CreatePayment(dueBody(map[string]any{"external_id": "cedo"}))
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/cedo/pay", Key: s.TestKey, Body: map[string]any{"date": "2026-03-05"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 95000, r.JSON(t)["amount_paid_cents"], "5%% off until the 5th")
	require.NotEqual(t, early["id"], nil)

	s.CreatePayment(dueBody(map[string]any{"external_id": "tarde"}))
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/tarde/pay", Key: s.TestKey, Body: map[string]any{"date": "2026-04-10"}})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Equal(t, "payment_not_payable_on_date", r.ErrorCode(t))
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/tarde", Key: s.TestKey}).JSON(t)
	require.Equal(t, "pending", got["status"], "a refused payment changes nothing")

	// Without a date: today (the clock's, 2026-03-02).
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/tarde/pay", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 95000, r.JSON(t)["amount_paid_cents"])
}

func TestDueDateChargeValidation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	cases := []struct {
		name  string
		body  map[string]any
		code  string
		param string
	}{
		{"needs a customer", dueBody(map[string]any{"customer": nil}), "parameter_missing", "customer"},
		{"not with expires_in", dueBody(map[string]any{"expires_in": 3600}), "parameter_invalid", "expires_in"},
		{"not before today", dueBody(map[string]any{"due_date": "2026-03-01"}), "parameter_invalid", "due_date"},
		{"a date", dueBody(map[string]any{"due_date": "10/03/2026"}), "parameter_invalid", "due_date"},
		{"days after due", dueBody(map[string]any{"days_after_due": -1}), "parameter_invalid", "days_after_due"},
		{"terms need a due date", dueBody(map[string]any{"due_date": nil, "days_after_due": nil, "interest": nil, "discounts": nil}), "parameter_invalid", "fine"},
		{"fine takes one", dueBody(map[string]any{"fine": map[string]any{"percent": "2.00", "amount_cents": 200}}), "parameter_invalid", "fine"},
		{"fine is an object", dueBody(map[string]any{"fine": "2%"}), "parameter_invalid_type", "fine"},
		{"fine's fields", dueBody(map[string]any{"fine": map[string]any{"pct": "2.00"}}), "parameter_unknown", "fine.pct"},
		{"percent has two decimals", dueBody(map[string]any{"fine": map[string]any{"percent": "2"}}), "parameter_invalid", "fine.percent"},
		{"percent is a string", dueBody(map[string]any{"fine": map[string]any{"percent": 2.5}}), "parameter_invalid_type", "fine.percent"},
		{"fine at most 100%", dueBody(map[string]any{"fine": map[string]any{"percent": "100.01"}}), "parameter_invalid", "fine.percent"},
		{"fine at most 10%", dueBody(map[string]any{"fine": map[string]any{"percent": "100.00"}}), "parameter_invalid", "fine.percent"},
		{"a fine's amount at most 10% of the charge", dueBody(map[string]any{"fine": map[string]any{"amount_cents": 10_001}}), "parameter_invalid", "fine.amount_cents"},
		{"interest at most 0.33% a day", dueBody(map[string]any{"interest": map[string]any{"percent_per_day": "99.99"}}), "parameter_invalid", "interest.percent_per_day"},
		{"interest at most 10% a month", dueBody(map[string]any{"interest": map[string]any{"percent_per_month": "10.01"}}), "parameter_invalid", "interest.percent_per_month"},
		{"interest at most 100% a year", dueBody(map[string]any{"interest": map[string]any{"percent_per_year": "100.01"}}), "parameter_invalid", "interest.percent_per_year"},
		{"interest's amount a day at most a thirtieth of 10%", dueBody(map[string]any{"interest": map[string]any{"amount_cents_per_day": 334}}), "parameter_invalid", "interest.amount_cents_per_day"},
		{"the issue's charge: R$ 1.000.000,00 owing 3,651 times that", dueBody(map[string]any{"amount_cents": 100_000_000, "days_after_due": 3650,
			"discounts": nil, "fine": map[string]any{"percent": "100.00"}, "interest": map[string]any{"percent_per_day": "99.99"}}), "parameter_invalid", "fine.percent"},
		{"the last payable day's amount within the largest payment", dueBody(map[string]any{"amount_cents": 100_000_000, "discounts": nil, "interest": nil,
			"fine": map[string]any{"percent": "0.01"}}), "parameter_invalid", "fine"},
		{"interest's worst case too", dueBody(map[string]any{"amount_cents": 90_000_000, "discounts": nil, "fine": nil, "days_after_due": 3650,
			"interest": map[string]any{"percent_per_month": "1.00"}}), "parameter_invalid", "interest"},
		{"interest takes one rate", dueBody(map[string]any{"interest": map[string]any{"business_days": true}}), "parameter_invalid", "interest"},
		{"interest's rate", dueBody(map[string]any{"interest": map[string]any{"percent_per_day": "0.00"}}), "parameter_invalid", "interest.percent_per_day"},
		{"business_days is a boolean", dueBody(map[string]any{"interest": map[string]any{"percent_per_day": "0.03", "business_days": "yes"}}), "parameter_invalid_type", "interest.business_days"},
		{"abatement below the amount", dueBody(map[string]any{"abatement": map[string]any{"amount_cents": 100000}}), "parameter_invalid", "abatement.amount_cents"},
		{"abatement below 100%", dueBody(map[string]any{"abatement": map[string]any{"percent": "100.00"}}), "parameter_invalid", "abatement.percent"},
		{"discount until the due date", dueBody(map[string]any{"discounts": map[string]any{"fixed": []any{map[string]any{"until": "2026-03-11", "percent": "1.00"}}}}), "parameter_invalid", "discounts.fixed[0].until"},
		{"discounts at most 3", dueBody(map[string]any{"discounts": map[string]any{"fixed": []any{
			map[string]any{"until": "2026-03-03", "percent": "1.00"}, map[string]any{"until": "2026-03-04", "percent": "1.00"},
			map[string]any{"until": "2026-03-05", "percent": "1.00"}, map[string]any{"until": "2026-03-06", "percent": "1.00"}}}}), "parameter_invalid", "discounts.fixed"},
		{"discounts of one kind", dueBody(map[string]any{"discounts": map[string]any{"fixed": []any{
			map[string]any{"until": "2026-03-03", "percent": "1.00"}, map[string]any{"until": "2026-03-04", "amount_cents": 100}}}}), "parameter_invalid", "discounts.fixed[1]"},
		{"discount below the amount", dueBody(map[string]any{"discounts": map[string]any{"fixed": []any{map[string]any{"until": "2026-03-03", "amount_cents": 100000}}}}), "parameter_invalid", "discounts.fixed[0].amount_cents"},
		{"fixed or per day", dueBody(map[string]any{"discounts": map[string]any{"fixed": []any{map[string]any{"until": "2026-03-03", "percent": "1.00"}},
			"per_day_early": map[string]any{"amount_cents": 10}}}), "parameter_invalid", "discounts"},
		{"business days with per day only", dueBody(map[string]any{"discounts": map[string]any{"fixed": []any{map[string]any{"until": "2026-03-03", "percent": "1.00"}},
			"business_days": true}}), "parameter_invalid", "discounts.business_days"},
		{"a discount's date", dueBody(map[string]any{"discounts": map[string]any{"fixed": []any{map[string]any{"percent": "1.00"}}}}), "parameter_missing", "discounts.fixed[0].until"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: c.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", c.name, r.Body)
		require.Equal(t, c.code, r.ErrorCode(t), "%s: %s", c.name, r.Body)
		require.Equal(t, c.param, r.ErrorParam(t), "%s: %s", c.name, r.Body)
	}
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: s.TestKey}).JSON(t)
	require.Empty(t, list["data"], "nothing refused was stored")

	worst := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: dueBody(map[string]any{"amount_cents": 100_000_000,
		"discounts": nil, "interest": nil, "fine": map[string]any{"percent": "0.01"}})})
	require.Contains(t, string(worst.Body), "on the last payable day, 2026-04-09", "the message names the day and the amount: %s", worst.Body)
	require.Contains(t, string(worst.Body), "100010000 cents")
	edge := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: dueBody(map[string]any{"amount_cents": 98_000_000,
		"external_id": "no-limite", "discounts": nil, "fine": map[string]any{"percent": "2.00"}, "interest": nil})})
	require.Equal(t, http.StatusCreated, edge.Status, "R$ 980.000,00 + 2%% is exactly the largest payment: %s", edge.Body)
}

func TestPaymentBatchCreatesEachItemOnItsOwn(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	s.CreatePayment(map[string]any{"amount_cents": 500, "external_id": "ja-existe"})
	items := []any{
		dueBody(map[string]any{"external_id": "aluno-1"}),
		dueBody(map[string]any{"external_id": "aluno-2", "fine": map[string]any{"percent": "2"}}),
		dueBody(map[string]any{"external_id": "ja-existe"}),
		dueBody(map[string]any{"external_id": "aluno-1"}),
		dueBody(map[string]any{"external_id": nil}),
		map[string]any{"amount_cents": 700, "external_id": "avulsa"},
		map[string]any{"amount_cents": 0, "external_id": "zerada"},
	}
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Headers: map[string]string{"Idempotency-Key": "lote-marco"},
		Body: map[string]any{"description": "Mensalidades de março", "payments": items}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	b := r.JSON(t)
	require.Equal(t, "payment_batch", b["object"])
	require.Equal(t, "/api/v1/payment_batches/"+b["id"].(string), r.Header.Get("Location"))
	require.Equal(t, map[string]any{"created": 2.0, "registered": 0.0, "refused": 5.0}, b["counts"])
	got := b["items"].([]any)
	status := func(i int) (string, string, string) {
		item := got[i].(map[string]any)
		e, _ := item["error"].(map[string]any)
		if e == nil {
			return item["status"].(string), "", ""
		}
		return item["status"].(string), e["code"].(string), e["param"].(string)
	}
	for i, want := range [][3]string{
		{"created", "", ""},
		{"refused", "parameter_invalid", "payments[1].fine.percent"},
		{"refused", "external_id_taken", "payments[2].external_id"},
		{"refused", "external_id_taken", "payments[3].external_id"},
		{"refused", "parameter_missing", "payments[4].external_id"},
		{"created", "", ""},
		{"refused", "amount_too_small", "payments[6].amount_cents"},
	} {
		s1, s2, s3 := status(i)
		require.Equal(t, want, [3]string{s1, s2, s3}, "item %d", i)
	}
	for i, external := range []any{"aluno-1", "aluno-2", "ja-existe", "aluno-1", nil, "avulsa", "zerada"} {
		require.Equal(t, external, got[i].(map[string]any)["external_id"], "item %d echoes the external_id it was sent with", i)
	}
	first := got[0].(map[string]any)
	p := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + first["payment_id"].(string), Key: s.TestKey}).JSON(t)
	require.Equal(t, "aluno-1", p["external_id"])
	require.Equal(t, "2026-03-10", p["due_date"])
	require.Equal(t, []string{"payment.created"}, s.EventTypes(p["id"].(string)))

	// The same request again is the same batch; another key reads it back.
	again := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Headers: map[string]string{"Idempotency-Key": "lote-marco"},
		Body: map[string]any{"description": "Mensalidades de março", "payments": items}})
	require.Equal(t, http.StatusCreated, again.Status)
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	require.Equal(t, b["id"], again.JSON(t)["id"])
	read := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payment_batches/" + b["id"].(string), Key: s.TestKey})
	require.Equal(t, http.StatusOK, read.Status)
	require.JSONEq(t, string(r.Body), string(read.Body))

	for _, body := range []map[string]any{{"payments": []any{}}, {"payments": "x"}, {"description": "vazio"}} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", body, r.Body)
		require.Equal(t, "payments", r.ErrorParam(t))
	}
	require.Equal(t, http.StatusNotFound, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payment_batches/pbat_nope", Key: s.TestKey}).Status)
}
