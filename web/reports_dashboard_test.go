package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// The dashboard's Relatórios: "Exportar" on a list fills the form with its
// type and days; the report asked there shows pending, then ready with its
// download, which serves the same file the API does; a refused form says
// why in words; the API's file_url opened in a browser leads to the
// dashboard's copy; another account's report is a 404.
func TestDashboardReports(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	f.makeMoney()
	s := f.s
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")

	list := b.do("GET", "/dashboard/refunds?since=2026-03-02&until=2026-03-03", nil, nil)
	require.Equal(t, http.StatusOK, list.status)
	export := list.doc.Find(`[data-testid="export"]`).AttrOr("href", "")
	require.Equal(t, "/dashboard/reports?type=refunds&from=2026-03-02&to=2026-03-03#new-report", export)
	for path, want := range map[string]string{"/dashboard/payments": "/dashboard/reports?type=payments#new-report",
		"/dashboard/balance": "/dashboard/reports?type=ledger#new-report", "/dashboard/withdrawals": "/dashboard/reports?type=payouts#new-report"} {
		require.Equal(t, want, b.do("GET", path, nil, nil).doc.Find(`[data-testid="export"]`).AttrOr("href", ""), path)
	}
	form := b.do("GET", strings.TrimSuffix(export, "#new-report"), nil, nil)
	require.Equal(t, http.StatusOK, form.status)
	require.Equal(t, "refunds", form.doc.Find(`#report-type option[selected]`).AttrOr("value", ""))
	require.Equal(t, "2026-03-02", form.doc.Find(`#report-from`).AttrOr("value", ""))
	require.Equal(t, "2026-03-03", form.doc.Find(`#report-to`).AttrOr("value", ""))
	dialect := form.doc.Find(`#report-csv-dialect option[selected]`).AttrOr("value", "")
	require.Equal(t, "excel_br", dialect, "in Portuguese, the CSV Excel opens")
	token := form.doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")

	refused := b.do("POST", "/dashboard/reports", url.Values{"_csrf": {token}, "type": {"refunds"}, "format": {"ofx"},
		"from": {"2026-03-02"}, "to": {"2026-03-03"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, refused.status)
	require.Contains(t, refused.doc.Find(`[data-testid="report-error"]`).Text(), "OFX é um extrato bancário")

	asked := b.do("POST", "/dashboard/reports", url.Values{"_csrf": {token}, "type": {"ledger"}, "format": {"csv"},
		"csv_dialect": {dialect}, "from": {"2026-03-02"}, "to": {"2026-03-03"}}, nil)
	require.Equal(t, http.StatusSeeOther, asked.status, "%s", asked.body)
	pending := b.do("GET", "/dashboard/reports", nil, nil)
	require.Contains(t, pending.doc.Find(`[data-testid="notice"]`).Text(), "Relatório pedido")
	row := pending.doc.Find(`[data-testid="list-row"]`)
	require.Equal(t, 1, row.Length())
	require.Equal(t, "pending", row.AttrOr("data-status", ""))
	require.Equal(t, 1, pending.doc.Find(`[hx-trigger="every 2s"]`).Length(), "a list with a pending report refreshes")
	id := row.AttrOr("data-id", "")

	f.build()
	ready := b.do("GET", "/dashboard/reports", nil, nil)
	row = ready.doc.Find(`[data-testid="list-row"]`)
	require.Equal(t, "ready", row.AttrOr("data-status", ""))
	require.Equal(t, "02/03/2026 – 03/03/2026", strings.TrimSpace(row.Find("td").Eq(1).Text()))
	require.Zero(t, ready.doc.Find(`[hx-trigger="every 2s"]`).Length())
	download := row.Find(`[data-testid="report-download"]`).AttrOr("href", "")
	require.Equal(t, "/dashboard/reports/"+id+"/file", download)
	file := b.do("GET", download, nil, nil)
	require.Equal(t, http.StatusOK, file.status)
	require.Equal(t, "text/csv; charset=utf-8", file.header.Get("Content-Type"))
	viaAPI := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + id + "/file", Key: s.TestKey})
	require.Equal(t, string(viaAPI.Body), file.body, "the dashboard serves the API's file")
	require.True(t, strings.HasPrefix(file.body, "\ufeffID do lançamento;Data;"), "excel_br: %.40q", file.body)
	require.Contains(t, row.Find(`[data-testid="report-download"]`).Text(), "CSV (Excel)")
	// The same request through the API gives the same file.
	_, sameAsked := f.reportAsked(map[string]any{"type": "ledger", "format": "csv", "csv_dialect": "excel_br", "from": "2026-03-02", "to": "2026-03-03"})
	require.Equal(t, file.body, string(sameAsked), "the API and the dashboard make the same file of the same request")

	// A browser following the file_url (an e-mail, a webhook's payload)
	// gets to the dashboard's copy; without a session, to the sign-in.
	opened := b.do("GET", "/api/v1/reports/"+id+"/file", nil, nil)
	require.Equal(t, http.StatusSeeOther, opened.status)
	require.Equal(t, "/dashboard/reports/"+id+"/file", opened.header.Get("Location"))
	stranger := newBrowser(t, s).do("GET", "/dashboard/reports/"+id+"/file", nil, nil)
	require.Equal(t, http.StatusSeeOther, stranger.status)
	require.True(t, strings.HasPrefix(stranger.header.Get("Location"), "/login"), stranger.header.Get("Location"))
	noKey := s.DoRaw(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + id + "/file"})
	require.Equal(t, http.StatusUnauthorized, noKey.Status, "an API client without a key")

	other, _, _ := s.NewAccount("Outra Loja", "outra@example.com")
	ownerFor(t, s, other.ID, "outra@example.com")
	ob := newBrowser(t, s)
	ob.login("outra@example.com", "correct-horse-battery")
	require.Equal(t, http.StatusNotFound, ob.do("GET", "/dashboard/reports/"+id+"/file", nil, nil).status)
	require.Zero(t, ob.do("GET", "/dashboard/reports", nil, nil).doc.Find(`[data-testid="list-row"]`).Length())
}

// The daily reconciliation report: turned on in the dashboard, the ledger
// of each day is made after midnight in the account's zone (not UTC's),
// once however often the scheduler runs, and announced by report.ready;
// turned off, no more.
func TestDailyReconciliationReport(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	s := f.s
	ctx := context.Background()
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/reports")
	saved := b.do("POST", "/dashboard/reports/daily", url.Values{"_csrf": {token}, "format": {"ofx"}}, nil)
	require.Equal(t, http.StatusSeeOther, saved.status, "%s", saved.body)
	require.Equal(t, "ofx", b.do("GET", "/dashboard/reports", nil, nil).doc.Find(`#daily-format option[selected]`).AttrOr("value", ""))

	f.paid(10_000, nil)   // 2 March, noon in Brasília: the first day made
	f.at("2026-03-03", 2) // 23:00 of the 2nd in Brasília: not yet
	n, err := s.Store.ScheduleDailyReports(ctx, 100)
	require.NoError(t, err)
	require.Zero(t, n, "the 2nd has not ended in Brasília")
	f.paid(5_000, nil) // still the 2nd there
	f.at("2026-03-03", 3)
	f.mu.Lock()
	f.now = f.now.Add(5 * time.Minute) // 00:05 of the 3rd in Brasília
	f.mu.Unlock()
	for range 3 {
		n, err = s.Store.ScheduleDailyReports(ctx, 100)
		require.NoError(t, err)
		if n > 0 {
			require.Equal(t, 1, n)
		}
	}
	var count int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM reports WHERE scheduled").Scan(ctx, &count))
	require.Equal(t, 1, count, "one report, however often the scheduler runs")
	f.build()
	events := f.api("GET", "/api/v1/events?type=report.ready", nil, http.StatusOK)["data"].([]any)
	require.Len(t, events, 1)
	r := events[0].(map[string]any)["data"].(map[string]any)["object"].(map[string]any)
	require.Equal(t, []any{"ledger", "ofx", "2026-03-02", "2026-03-02", true}, []any{r["type"], r["format"], r["from"], r["to"], r["scheduled"]})
	require.Equal(t, float64(4), r["row_count"], "two payments and their fees, the 22:30 one included")

	b.login("dona@example.com", "correct-horse-battery") // the clock moved past the session's idle time
	token = b.csrf("/dashboard/reports")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/reports/daily", url.Values{"_csrf": {token}, "format": {""}}, nil).status)
	f.at("2026-03-05", 12)
	n, err = s.Store.ScheduleDailyReports(ctx, 100)
	require.NoError(t, err)
	require.Zero(t, n, "off: no more")
}
