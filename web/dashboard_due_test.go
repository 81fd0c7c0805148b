package web_test

import (
	"bytes"
	"encoding/csv"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/pix/calendar"
	"payments/web/webtest"
)

// noonInBrasilia is a clock stopped at noon of date in Brasília.
func noonInBrasilia(date string) func() time.Time {
	d, _ := calendar.ParseDate(date)
	return func() time.Time { return d.Start().Add(12 * time.Hour) }
}

// A due-date charge made in the dashboard: the preview shows what the
// payer owes by date, the charge keeps its terms, its page and the
// checkout show today's amount part by part, and the list finds it by
// its due date.
func TestDashboardDueDateCharge(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonInBrasilia("2026-03-02")))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	form := url.Values{"_csrf": {b.csrf("/dashboard/payments/new")}, "amount": {"1.000,00"}, "external_id": {"mensalidade-03"},
		"due_date": {"2026-03-10"}, "days_after_due": {"30"}, "fine_kind": {"percent"}, "fine_value": {"2"},
		"interest_kind": {"percent_per_month"}, "interest_value": {"1,00"},
		"discount_kind": {"percent"}, "discount_value": {"5"}, "discount_until": {"2026-03-05"},
		"customer_name": {"Ana Lima"}, "customer_email": {"ana@example.com"}, "customer_document": {"529.982.247-25"},
		"preview_date": {"2026-03-25"}}

	// The preview (htmx's fragment): today, days around the due date, the
	// chosen one, the last payable day and the day after.
	preview := b.do("POST", "/dashboard/payments/preview", form, map[string]string{"HX-Request": "true"})
	require.Equal(t, http.StatusOK, preview.status, "%s", preview.body)
	amounts := map[string]string{}
	preview.doc.Find(`[data-testid="preview-row"]`).Each(func(_ int, row *goquery.Selection) {
		amounts[row.AttrOr("data-date", "")] = strings.TrimSpace(row.Find(`[data-testid="preview-amount"]`).Text())
	})
	require.Equal(t, map[string]string{"2026-03-02": "R$ 950,00", "2026-03-05": "R$ 950,00", "2026-03-09": "R$ 1.000,00",
		"2026-03-10": "R$ 1.000,00", "2026-03-11": "R$ 1.020,33", "2026-03-20": "R$ 1.023,33", "2026-03-25": "R$ 1.025,00",
		"2026-04-09": "R$ 1.030,00", "2026-04-10": "Expirada"}, amounts)

	// Refused terms are said beside their field, in Portuguese.
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("discount_until", "2026-03-11")
	bad.Set("_csrf", b.csrf("/dashboard/payments/new"))
	r := b.do("POST", "/dashboard/payments", bad, nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status)
	require.Contains(t, r.doc.Find(`[data-testid="error-discount_value"]`).Text(), "não pode passar do vencimento")

	form.Set("_csrf", b.csrf("/dashboard/payments/new"))
	r = b.do("POST", "/dashboard/payments", form, nil)
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	page := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.doc.Find(`[data-testid="payment-due-date"]`).Text(), "10/03/2026")
	require.Contains(t, page.doc.Find(`[data-testid="payment-due-date"]`).Text(), "pagável até 09/04/2026")
	terms := page.doc.Find(`[data-testid="payment-due-term"]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	require.Equal(t, []string{"2,00%", "1,00% ao mês (dias corridos)", "5,00% até 05/03/2026"}, terms)
	require.Equal(t, "− R$ 50,00", strings.TrimSpace(page.doc.Find(`[data-testid="amount-discount"] dd`).Text()))
	require.Equal(t, "R$ 950,00", strings.TrimSpace(page.doc.Find(`[data-testid="amount-total"] dd`).Text()))

	api := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/mensalidade-03", Key: s.TestKey}).JSON(t)
	require.Equal(t, "2026-03-10", api["due_date"])
	require.Equal(t, map[string]any{"percent": "2.00"}, api["fine"])

	// The checkout: due date, and what is owed today, part by part.
	checkout := b.do("GET", "/pay/"+api["id"].(string), nil, map[string]string{"Accept-Language": "pt-BR"})
	require.Contains(t, checkout.doc.Find(`[data-testid="checkout-due-date"]`).Text(), "Vencimento: 10/03/2026")
	require.Equal(t, "R$ 950,00", checkout.doc.Find(`[data-testid="checkout-amount"]`).Text())
	require.Contains(t, checkout.doc.Find(`[data-testid="amount-discount"]`).Text(), "Desconto pagando até 05/03/2026")
	english := b.do("GET", "/pay/"+api["id"].(string), nil, map[string]string{"Accept-Language": "en"})
	require.Contains(t, english.doc.Find(`[data-testid="checkout-due-date"]`).Text(), "Due 10/03/2026")
	require.Contains(t, english.doc.Find(`[data-testid="amount-discount"]`).Text(), "Discount if paid by 05/03/2026")

	// The list: the due date beside the amount, and the due-date filters.
	s.CreatePayment(map[string]any{"amount_cents": 500, "external_id": "avulsa"})
	rows := func(query string) []string {
		return b.do("GET", "/dashboard/payments"+query, nil, nil).doc.Find(`[data-testid="payment-row"]`).Map(func(_ int, s *goquery.Selection) string {
			return strings.TrimSpace(s.Find(`td`).Eq(2).Text())
		})
	}
	require.Len(t, rows(""), 2)
	require.Equal(t, []string{"mensalidade-03"}, rows("?due=upcoming"))
	require.Empty(t, rows("?due=today"))
	require.Empty(t, rows("?due=overdue"))
	list := b.do("GET", "/dashboard/payments?due=upcoming", nil, nil)
	require.Contains(t, list.doc.Find(`[data-testid="payment-due"]`).Text(), "vence 10/03/2026")
}

// A batch sent as a CSV (semicolons, as Brazilian spreadsheets write it):
// each row checked on its own, the outcome shown line by line and
// downloadable.
func TestDashboardBatchFromCSV(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonInBrasilia("2026-03-02")))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")

	template := b.do("GET", "/dashboard/payment_batches/template.csv", nil, nil)
	require.Equal(t, http.StatusOK, template.status)
	require.True(t, strings.HasPrefix(template.body, "external_id,amount,description,customer_name"), template.body)

	csvFile := "\uFEFFexternal_id;amount;customer_name;customer_email;customer_document;due_date;fine_kind;fine_value\n" +
		"aluno-1;450,00;Ana Lima;ana@example.com;529.982.247-25;2026-03-10;percent;2,00\n" +
		"aluno-2;450,00;Bia Lima;bia@example.com;529.982.247-25;2026-02-10;percent;2,00\n" +
		"aluno-3;0,00;Caio Lima;caio@example.com;529.982.247-25;2026-03-10;;\n" +
		";450,00;;;;;;\n" +
		"avulsa;12,34;;;;;;\n"
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField("_csrf", b.csrf("/dashboard/payment_batches")))
	require.NoError(t, w.WriteField("description", "Mensalidades de março"))
	part, err := w.CreateFormFile("file", "marco.csv")
	require.NoError(t, err)
	_, err = part.Write([]byte(csvFile))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	req, err := http.NewRequest("POST", s.URL+"/dashboard/payment_batches", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "text/html")
	res, err := b.client.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	location := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(location, "/dashboard/payment_batches/pbat_"), location)

	page := b.do("GET", location, nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Equal(t, "Mensalidades de março", strings.TrimSpace(page.doc.Find("h1").Text()))
	statuses := page.doc.Find(`[data-testid="batch-item"]`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-status", "") })
	require.Equal(t, []string{"created", "refused", "refused", "refused", "created"}, statuses)
	errs := page.doc.Find(`[data-testid="batch-item-error"]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	require.Equal(t, []string{"Escolha um vencimento a partir de hoje.", "O valor precisa ser de pelo menos R$ 0,01.", "Cada linha precisa de external_id (a sua referência)."}, errs)

	outcome := b.do("GET", location+"/outcome.csv", nil, nil)
	require.Equal(t, http.StatusOK, outcome.status)
	records, err := csv.NewReader(strings.NewReader(outcome.body)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"line", "external_id", "status", "payment_id", "error"}, records[0])
	require.Equal(t, []string{"2", "aluno-1", "created"}, records[1][:3])
	require.Equal(t, []string{"3", "aluno-2", "refused", "", "Escolha um vencimento a partir de hoje."}, records[2])

	api := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/aluno-1", Key: s.TestKey}).JSON(t)
	require.Equal(t, "2026-03-10", api["due_date"])
	require.EqualValues(t, 45000, api["amount_cents"])
	list := b.do("GET", "/dashboard/payment_batches", nil, nil)
	require.Equal(t, 1, list.doc.Find(`[data-testid="batch-row"]`).Length())

	// A batch the API made: its refusal's field in words, not the API's
	// path, whose index is not the page's line (issue 52).
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Body: map[string]any{"payments": []any{
		map[string]any{"external_id": "api-1", "amount_cents": 2_500},
		map[string]any{"external_id": "api-2", "amount_cents": 2_500, "due_date": "2026-03-10"}}}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, "payments[1].customer", r.JSON(t)["items"].([]any)[1].(map[string]any)["error"].(map[string]any)["param"])
	apiBatch := b.do("GET", "/dashboard/payment_batches/"+r.JSON(t)["id"].(string), nil, nil)
	require.Equal(t, http.StatusOK, apiBatch.status)
	fields := apiBatch.doc.Find(`[data-testid="batch-item-field"]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	require.Equal(t, []string{"Campo: Cliente"}, fields)
	require.NotContains(t, apiBatch.body, "payments[1]")
}

// The dashboard warns, in words, when a CPF payer is charged a fine above
// 2% or interest above 1% a month (a consumer: the CDC's limits), not for
// a CNPJ payer; terms whose last payable day would owe more than a payment
// may be are refused beside the field, naming that day and that amount.
func TestDashboardDueTermsWarnAndRefuseInWords(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonInBrasilia("2026-03-02")))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	form := func(document, amount, fine, interest string) url.Values {
		return url.Values{"_csrf": {b.csrf("/dashboard/payments/new")}, "amount": {amount}, "external_id": {"m-1"},
			"due_date": {"2026-03-10"}, "days_after_due": {"30"}, "fine_kind": {"percent"}, "fine_value": {fine},
			"interest_kind": {"percent_per_month"}, "interest_value": {interest},
			"customer_name": {"Ana Lima"}, "customer_email": {"ana@example.com"}, "customer_document": {document}}
	}
	warnings := func(f url.Values) []string {
		p := b.do("POST", "/dashboard/payments/preview", f, map[string]string{"HX-Request": "true"})
		require.Equal(t, http.StatusOK, p.status, "%s", p.body)
		var out []string
		p.doc.Find(`[data-testid="consumer-warning"]`).Each(func(_ int, w *goquery.Selection) { out = append(out, w.Text()) })
		return out
	}
	cpf, cnpj := "529.982.247-25", "11.222.333/0001-81"
	require.Empty(t, warnings(form(cpf, "1.000,00", "2", "1,00")), "2% and 1% a month are within the law")
	got := warnings(form(cpf, "1.000,00", "5", "3,00"))
	require.Len(t, got, 2)
	require.Contains(t, got[0], "Código de Defesa do Consumidor")
	require.Contains(t, got[1], "1% ao mês")
	require.Empty(t, warnings(form(cnpj, "1.000,00", "5", "3,00")), "a CNPJ payer is no consumer")

	r := b.do("POST", "/dashboard/payments", form(cpf, "1.000.000,00", "2", "1,00"), nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
	msg := r.doc.Find(`[data-testid="error-interest_value"]`).Text()
	require.Contains(t, msg, "09/04/2026", "the last payable day")
	require.Contains(t, msg, "R$ 1.000.000,00", "the largest charge")
}
