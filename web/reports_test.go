package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// reportFixture is a server whose clock the test moves, with money made
// over three days in Brasília: what every report test reads back.
type reportFixture struct {
	t   *testing.T
	s   *webtest.Server
	mu  sync.Mutex
	now time.Time
}

func newReportFixture(t *testing.T) *reportFixture {
	f := &reportFixture{t: t, now: time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)} // noon in Brasília
	// The clock ticks a millisecond a reading: objects made one after
	// another are made in order.
	f.s = webtest.New(t, webtest.WithClock(func() time.Time {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.now = f.now.Add(time.Millisecond)
		return f.now
	}))
	return f
}

func (f *reportFixture) at(day string, hourUTC int) {
	d, err := time.Parse(time.DateOnly, day)
	require.NoError(f.t, err)
	f.mu.Lock()
	f.now = d.Add(time.Duration(hourUTC) * time.Hour)
	f.mu.Unlock()
}

func (f *reportFixture) api(method, path string, body map[string]any, want int) map[string]any {
	f.t.Helper()
	req := webtest.Request{Method: method, Path: path, Key: f.s.TestKey}
	if body != nil {
		req.Body = body
	}
	r := f.s.Do(req)
	require.Equal(f.t, want, r.Status, "%s %s: %s", method, path, r.Body)
	return r.JSON(f.t)
}

func (f *reportFixture) paid(cents int, extra map[string]any) string {
	body := map[string]any{"amount_cents": cents}
	for k, v := range extra {
		body[k] = v
	}
	id := f.api("POST", "/api/v1/payments", body, http.StatusCreated)["id"].(string)
	f.api("POST", "/api/v1/test_helpers/payments/"+id+"/pay", nil, http.StatusOK)
	return id
}

// build runs the builder until no report is pending.
func (f *reportFixture) build() {
	f.t.Helper()
	for {
		built, err := f.s.Reports.BuildNext(context.Background())
		require.NoError(f.t, err)
		if !built {
			return
		}
	}
}

// report asks for a report, builds it and returns it with its file.
func (f *reportFixture) report(typ, format, from, to string) (map[string]any, []byte) {
	f.t.Helper()
	return f.reportAsked(map[string]any{"type": typ, "format": format, "from": from, "to": to})
}

// reportAsked asks for the report body describes (type, format, from, to
// and what else the API takes), builds it and returns it with its file.
func (f *reportFixture) reportAsked(body map[string]any) (map[string]any, []byte) {
	f.t.Helper()
	typ, format, from, to := body["type"].(string), body["format"].(string), body["from"].(string), body["to"].(string)
	r := f.api("POST", "/api/v1/reports", body, http.StatusCreated)
	require.Equal(f.t, "pending", r["status"])
	require.Nil(f.t, r["file_url"], "no file before it is built")
	f.build()
	r = f.api("GET", "/api/v1/reports/"+r["id"].(string), nil, http.StatusOK)
	require.Equal(f.t, "ready", r["status"], "%v", r)
	fileURL := r["file_url"].(string)
	require.Equal(f.t, f.s.URL+"/api/v1/reports/"+r["id"].(string)+"/file", fileURL)
	got := f.s.Do(webtest.Request{Method: "GET", Path: strings.TrimPrefix(fileURL, f.s.URL), Key: f.s.TestKey})
	require.Equal(f.t, http.StatusOK, got.Status, "%s", got.Body)
	sum := sha256.Sum256(got.Body)
	require.Equal(f.t, hex.EncodeToString(sum[:]), r["sha256"])
	require.Equal(f.t, "sha-256="+hex.EncodeToString(sum[:]), got.Header.Get("Digest"))
	require.Equal(f.t, float64(len(got.Body)), r["size_bytes"])
	require.Equal(f.t, "private, no-store", got.Header.Get("Cache-Control"))
	name := typ + "-" + from
	if to != from {
		name += "-a-" + to
	}
	require.Equal(f.t, `attachment; filename="`+name+"."+format+`"`, got.Header.Get("Content-Disposition"))
	return r, got.Body
}

// money is the history every report test reads: in Brasília, on 2 March a
// paid charge with its customer and external_id, one left pending and (at
// 22:30, already 3 March in UTC) one paid and partly refunded; on 3 March
// one paid and a payout; on 4 March one more paid.
type money struct {
	day2Paid, day2Pending, lateNight, day3Paid, day4Paid string
	refund, payout                                       string
}

func (f *reportFixture) makeMoney() money {
	var m money
	m.day2Paid = f.paid(10_000, map[string]any{"external_id": "pedido-1", "description": "Camiseta",
		"customer": map[string]any{"name": "Maria Souza", "email": "maria@example.com", "document": "52998224725"}})
	m.day2Pending = f.api("POST", "/api/v1/payments", map[string]any{"amount_cents": 5_000}, http.StatusCreated)["id"].(string)
	f.at("2026-03-03", 1) // 22:30 of the 2nd in Brasília
	m.lateNight = f.paid(20_000, nil)
	m.refund = f.api("POST", "/api/v1/refunds", map[string]any{"payment": m.lateNight, "amount_cents": 3_000}, http.StatusCreated)["id"].(string)
	f.api("POST", "/api/v1/test_helpers/refunds/"+m.refund+"/succeed", nil, http.StatusOK)
	f.at("2026-03-03", 14)
	m.day3Paid = f.paid(7_000, nil)
	m.payout = f.api("POST", "/api/v1/withdrawals", map[string]any{"amount_cents": 1_000, "pix_key": "ana@example.com"}, http.StatusCreated)["id"].(string)
	f.at("2026-03-04", 14)
	m.day4Paid = f.paid(3_000, nil)
	f.at("2026-03-05", 14)
	return m
}

func readCSV(t *testing.T, file []byte) (header []string, rows []map[string]string) {
	t.Helper()
	all, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	header = all[0]
	for _, line := range all[1:] {
		row := map[string]string{}
		for i, v := range line {
			row[header[i]] = v
		}
		rows = append(rows, row)
	}
	return header, rows
}

// Reports of each type as CSV, read back with Go's csv reader: the rows
// of the days asked for in Brasília (a charge at 22:30 of the 2nd is the
// 2nd's, though UTC says the 3rd), oldest first, every amount in cents and
// reais equal to the database's, each row keyed by payment id, external_id,
// txid and end-to-end id; report.ready recorded.
func TestReportsCSVMatchTheDatabase(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	m := f.makeMoney()
	ctx := context.Background()

	_, file := f.report("payments", "csv", "2026-03-02", "2026-03-02")
	header, rows := readCSV(t, file)
	require.Equal(t, []string{"id", "created_at", "status", "external_id", "txid", "end_to_end_id", "description",
		"amount_cents", "amount", "amount_paid_cents", "amount_paid", "fee_cents", "fee", "amount_refunded_cents", "amount_refunded",
		"fee_refunded_cents", "fee_refunded", "net_cents", "net", "payer_name", "payer_document", "paid_at", "expires_at",
		"subscription_id", "due_date", "split_cents", "split", "splits"}, header)
	var ids []string
	for _, r := range rows {
		ids = append(ids, r["id"])
	}
	require.Equal(t, []string{m.day2Paid, m.day2Pending, m.lateNight}, ids, "the 2nd in Brasília, oldest first")
	for _, r := range rows {
		var want struct {
			Status, CorrelationID   string
			ExternalID, Description *string
			Amount, Fee, Refunded   int64
			FeeRefunded             int64
			PaidAt, CreatedAt       *time.Time
		}
		require.NoError(t, f.s.DB.NewRaw(`SELECT status, correlation_id, external_id, description, amount_cents AS amount,
			fee_cents AS fee, amount_refunded_cents AS refunded, fee_refunded_cents AS fee_refunded, paid_at, created_at
			FROM payments WHERE id = ?`, r["id"]).Scan(ctx, &want.Status, &want.CorrelationID, &want.ExternalID, &want.Description,
			&want.Amount, &want.Fee, &want.Refunded, &want.FeeRefunded, &want.PaidAt, &want.CreatedAt))
		require.Equal(t, want.Status, r["status"])
		require.Equal(t, want.CorrelationID, r["txid"])
		require.Equal(t, strconv.FormatInt(want.Amount, 10), r["amount_cents"])
		require.Equal(t, fmt.Sprintf("%d.%02d", want.Amount/100, want.Amount%100), r["amount"])
		require.Equal(t, want.CreatedAt.In(brasilia(t)).Format("2006-01-02T15:04:05.000-07:00"), r["created_at"])
		api := f.api("GET", "/api/v1/payments/"+r["id"], nil, http.StatusOK)
		require.Equal(t, []string{fmt.Sprint(api["fee_cents"]), fmt.Sprint(api["net_cents"])}, []string{r["fee_cents"], r["net_cents"]},
			"fee and net are the API's, pending or not")
		if want.PaidAt == nil {
			require.Equal(t, []string{"0", strconv.FormatInt(want.Fee, 10), strconv.FormatInt(want.Amount-want.Fee, 10), ""},
				[]string{r["amount_paid_cents"], r["fee_cents"], r["net_cents"], r["paid_at"]})
			continue
		}
		net := want.Amount - want.Fee - want.Refunded + want.FeeRefunded
		require.Equal(t, []string{strconv.FormatInt(want.Amount, 10), strconv.FormatInt(want.Fee, 10), strconv.FormatInt(net, 10)},
			[]string{r["amount_paid_cents"], r["fee_cents"], r["net_cents"]})
	}
	require.Equal(t, []string{"pedido-1", "Camiseta", "Maria Souza", "52998224725"},
		[]string{rows[0]["external_id"], rows[0]["description"], rows[0]["payer_name"], rows[0]["payer_document"]})
	var refundFee int64
	require.NoError(t, f.s.DB.NewRaw("SELECT fee_cents FROM refunds WHERE id = ?", m.refund).Scan(ctx, &refundFee))
	require.NotZero(t, refundFee)
	require.Equal(t, []string{"3000", "30.00", strconv.FormatInt(refundFee, 10), fmt.Sprintf("0.%02d", refundFee)},
		[]string{rows[2]["amount_refunded_cents"], rows[2]["amount_refunded"], rows[2]["fee_refunded_cents"], rows[2]["fee_refunded"]})

	_, file = f.report("refunds", "csv", "2026-03-02", "2026-03-04")
	_, rows = readCSV(t, file)
	require.Len(t, rows, 1)
	require.Equal(t, []string{m.refund, m.lateNight, "3000", "succeeded"}, []string{rows[0]["id"], rows[0]["payment_id"], rows[0]["amount_cents"], rows[0]["status"]})
	net := -3000 + refundFee
	require.Equal(t, []string{strconv.FormatInt(refundFee, 10), strconv.FormatInt(net, 10), fmt.Sprintf("-%d.%02d", -net/100, -net%100)},
		[]string{rows[0]["fee_returned_cents"], rows[0]["net_cents"], rows[0]["net"]})

	_, file = f.report("payouts", "csv", "2026-03-03", "2026-03-03")
	_, rows = readCSV(t, file)
	require.Len(t, rows, 1)
	require.Equal(t, []string{m.payout, "1000", "10.00", "ana@example.com", "pending"},
		[]string{rows[0]["id"], rows[0]["amount_cents"], rows[0]["amount"], rows[0]["pix_key"], rows[0]["status"]})

	// The ledger of the 3rd: its entries, their running balance from the
	// 2nd's closing, each equal to its database row.
	_, file = f.report("ledger", "csv", "2026-03-03", "2026-03-03")
	_, rows = readCSV(t, file)
	var opening int64
	require.NoError(t, f.s.DB.NewRaw(`SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries
		WHERE account_id = ? AND NOT livemode AND balance = 'available' AND created_at < '2026-03-03T03:00:00Z'`, f.s.Account.ID).Scan(ctx, &opening))
	var entries []struct {
		ID       int64  `bun:"id"`
		Type     string `bun:"type"`
		Amount   int64  `bun:"amount_cents"`
		SourceID string `bun:"source_id"`
	}
	require.NoError(t, f.s.DB.NewRaw(`SELECT id, type, amount_cents, source_id FROM ledger_entries
		WHERE account_id = ? AND NOT livemode AND created_at >= '2026-03-03T03:00:00Z' AND created_at < '2026-03-04T03:00:00Z'
		ORDER BY id`, f.s.Account.ID).Scan(ctx, &entries))
	require.Len(t, rows, len(entries))
	require.Equal(t, 3, len(entries), "day 3: a payment, its fee and a payout; the refund at 22:30 of the 2nd is the 2nd's")
	running := opening
	for i, e := range entries {
		running += e.Amount
		require.Equal(t, []string{strconv.FormatInt(e.ID, 10), e.Type, strconv.FormatInt(e.Amount, 10), e.SourceID, strconv.FormatInt(running, 10)},
			[]string{rows[i]["id"], rows[i]["type"], rows[i]["amount_cents"], rows[i]["source_id"], rows[i]["running_balance_cents"]})
	}
	require.Equal(t, m.day3Paid, rows[0]["payment_id"])

	events := f.api("GET", "/api/v1/events?type=report.ready", nil, http.StatusOK)["data"].([]any)
	require.Len(t, events, 4)
	require.Equal(t, "report", events[0].(map[string]any)["data"].(map[string]any)["object"].(map[string]any)["object"])
}

func brasilia(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	require.NoError(t, err)
	return loc
}

// runNode runs one of testdata's readers on file and decodes its JSON.
func runNode(t *testing.T, script string, file []byte, into any) {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is needed to read the files back with a second library")
	path := filepath.Join(t.TempDir(), "report")
	require.NoError(t, os.WriteFile(path, file, 0o600))
	out, err := exec.Command(node, filepath.Join("testdata", script), path).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("%s: %s", script, ee.Stderr)
	}
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(out, into), "%s", out)
}

// The spreadsheet, read by exceljs: a sheet with Portuguese titles, typed
// cells (cents as integers, reais as numbers in an R$ format, dates as
// dates on Brasília's wall clock), equal to the CSV of the same report.
func TestReportsXLSXReadByExcelJS(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	m := f.makeMoney()
	_, csvFile := f.report("payments", "csv", "2026-03-02", "2026-03-04")
	_, want := readCSV(t, csvFile)
	r, file := f.report("payments", "xlsx", "2026-03-02", "2026-03-04")
	require.Equal(t, float64(5), r["row_count"])
	var got struct {
		Sheet   string
		Formats []*string
		Rows    [][]any
	}
	runNode(t, "read_xlsx.mjs", file, &got)
	require.Equal(t, "Pagamentos", got.Sheet)
	require.Len(t, got.Rows, 1+len(want))
	title := map[string]int{}
	for i, v := range got.Rows[0] {
		title[v.(string)] = i
	}
	for _, name := range []string{"ID do pagamento", "Criado em", "Valor cobrado (centavos)", "Valor cobrado (R$)", "Tarifa (R$)", "Líquido (R$)", "ID fim a fim (E2E)",
		"Expira em", "Vencimento"} {
		require.Contains(t, title, name)
	}
	require.Contains(t, *got.Formats[title["Valor cobrado (R$)"]], `"R$" #,##0.00`)
	require.Equal(t, "dd/mm/yyyy hh:mm:ss", *got.Formats[title["Criado em"]])
	for i, row := range got.Rows[1:] {
		require.Equal(t, want[i]["id"], row[title["ID do pagamento"]])
		cents, err := strconv.ParseInt(want[i]["amount_cents"], 10, 64)
		require.NoError(t, err)
		require.Equal(t, float64(cents), row[title["Valor cobrado (centavos)"]])
		require.Equal(t, cents, int64(math.Round(row[title["Valor cobrado (R$)"]].(float64)*100)))
		net, err := strconv.ParseInt(want[i]["net_cents"], 10, 64)
		require.NoError(t, err)
		require.Equal(t, net, int64(math.Round(row[title["Líquido (R$)"]].(float64)*100)))
		created, err := time.Parse(time.RFC3339, want[i]["created_at"])
		require.NoError(t, err)
		wall := created.Format("2006-01-02T15:04:05.000") + "Z" // the sheet's date: Brasília's wall clock
		require.Equal(t, map[string]any{"date": wall}, row[title["Criado em"]])
	}
	require.Equal(t, m.day4Paid, got.Rows[5][title["ID do pagamento"]])
}

// The ledger as an OFX statement, read by ofx-js: one transaction per
// entry of the available balance in the period (FITID its id), amounts in
// reais, LEDGERBAL the balance at the period's end; in BRL.
func TestReportsOFXReadByOFXJS(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	f.makeMoney()
	ctx := context.Background()
	r, file := f.report("ledger", "ofx", "2026-03-02", "2026-03-03")
	require.True(t, bytes.HasPrefix(file, []byte(`<?xml version="1.0" encoding="UTF-8" standalone="no"?>`+"\n"+`<?OFX OFXHEADER="200" VERSION="220"`)), "%s", file[:120])
	var got struct {
		Currency, Account, Ledger, Available string
		Transactions                         []struct{ Type, Posted, Amount, Fitid, Name, Memo, Refnum string }
	}
	runNode(t, "read_ofx.mjs", file, &got)
	var entries []struct {
		ID     int64 `bun:"id"`
		Amount int64 `bun:"amount_cents"`
	}
	require.NoError(t, f.s.DB.NewRaw(`SELECT id, amount_cents FROM ledger_entries
		WHERE account_id = ? AND NOT livemode AND balance = 'available'
		AND created_at >= '2026-03-02T03:00:00Z' AND created_at < '2026-03-04T03:00:00Z' ORDER BY id`, f.s.Account.ID).Scan(ctx, &entries))
	require.Len(t, got.Transactions, len(entries))
	require.Equal(t, float64(len(entries)), r["row_count"])
	for i, e := range entries {
		require.Equal(t, strconv.FormatInt(e.ID, 10), got.Transactions[i].Fitid)
		require.Equal(t, e.Amount, cents(t, got.Transactions[i].Amount), "entry %d", e.ID)
	}
	var closing int64
	require.NoError(t, f.s.DB.NewRaw(`SELECT sum(amount_cents) FROM ledger_entries WHERE account_id = ? AND NOT livemode
		AND balance = 'available' AND created_at < '2026-03-04T03:00:00Z'`, f.s.Account.ID).Scan(ctx, &closing))
	require.Equal(t, closing, cents(t, got.Ledger))
	require.Equal(t, closing, cents(t, got.Available))
	require.Equal(t, "BRL", got.Currency)
	require.Equal(t, f.s.Account.ID, got.Account)
	require.Equal(t, "CREDIT", got.Transactions[0].Type)
	require.Equal(t, "FEE", got.Transactions[1].Type)
	require.Contains(t, got.Transactions[0].Memo, "externo pedido-1")
}

func cents(t *testing.T, reais string) int64 {
	t.Helper()
	v, err := strconv.ParseFloat(reais, 64)
	require.NoError(t, err, reais)
	return int64(math.Round(v * 100))
}

// Bad requests are 400s naming the parameter; a report is its account's
// and mode's only; a key without the permission is refused; the file is
// 409 before it is built and 410 past its 7 days, when its parts are gone.
func TestReportsRefusals(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	f.makeMoney()
	for _, c := range []struct {
		body        map[string]any
		code, param string
	}{
		{map[string]any{"format": "csv", "from": "2026-03-02", "to": "2026-03-02"}, "parameter_missing", "type"},
		{map[string]any{"type": "invoices", "format": "csv", "from": "2026-03-02", "to": "2026-03-02"}, "parameter_invalid", "type"},
		{map[string]any{"type": "payments", "format": "pdf", "from": "2026-03-02", "to": "2026-03-02"}, "parameter_invalid", "format"},
		{map[string]any{"type": "payments", "format": "ofx", "from": "2026-03-02", "to": "2026-03-02"}, "format_unsupported", "format"},
		{map[string]any{"type": "ledger", "format": "csv", "from": "02/03/2026", "to": "2026-03-02"}, "parameter_invalid", "from"},
		{map[string]any{"type": "ledger", "format": "csv", "from": "2026-03-02"}, "parameter_missing", "to"},
		{map[string]any{"type": "ledger", "format": "csv", "from": "2026-03-03", "to": "2026-03-02"}, "date_range_invalid", "to"},
		{map[string]any{"type": "ledger", "format": "csv", "from": "2026-03-02", "to": "2026-03-06"}, "date_in_future", "to"},
		{map[string]any{"type": "ledger", "format": "csv", "from": "2025-01-01", "to": "2026-03-02"}, "date_range_too_long", "to"},
		{map[string]any{"type": "ledger", "format": "csv", "from": "2026-03-02", "to": "2026-03-02", "zone": "UTC"}, "parameter_unknown", "zone"},
		{map[string]any{"type": 3, "format": "csv", "from": "2026-03-02", "to": "2026-03-02"}, "parameter_invalid_type", "type"},
	} {
		r := f.s.Do(webtest.Request{Method: "POST", Path: "/api/v1/reports", Key: f.s.TestKey, Body: c.body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.body, r.Body)
		require.Equal(t, c.code, r.ErrorCode(t), "%v: %s", c.body, r.Body)
		require.Equal(t, c.param, r.ErrorParam(t), "%v", c.body)
	}
	var n int
	require.NoError(t, f.s.DB.NewRaw("SELECT count(*) FROM reports").Scan(context.Background(), &n))
	require.Zero(t, n, "nothing stored for a refused request")

	pending := f.api("POST", "/api/v1/reports", map[string]any{"type": "ledger", "format": "csv", "from": "2026-03-02", "to": "2026-03-05"}, http.StatusCreated)
	require.Equal(t, pending["created_at"], pending["period_end"], "a period that includes today stops at the report's creation")
	id := pending["id"].(string)
	notReady := f.s.Do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + id + "/file", Key: f.s.TestKey})
	require.Equal(t, http.StatusConflict, notReady.Status)
	require.Equal(t, "report_not_ready", notReady.ErrorCode(t))

	_, otherKey, _ := f.s.NewAccount("Outra Loja", "outra@example.com")
	for _, path := range []string{"/api/v1/reports/" + id, "/api/v1/reports/" + id + "/file"} {
		r := f.s.Do(webtest.Request{Method: "GET", Path: path, Key: otherKey})
		require.Equal(t, http.StatusNotFound, r.Status, path)
		r = f.s.Do(webtest.Request{Method: "GET", Path: path, Key: f.s.LiveKey})
		require.Equal(t, http.StatusNotFound, r.Status, "another mode: %s", path)
	}
	list := f.s.Do(webtest.Request{Method: "GET", Path: "/api/v1/reports", Key: otherKey}).JSON(t)
	require.Empty(t, list["data"])

	restricted := adminKey(t, f.s, "--name", "ERP", "--permissions", "payments:read")["key"].(string)
	refused := f.s.Do(webtest.Request{Method: "POST", Path: "/api/v1/reports", Key: restricted,
		Body: map[string]any{"type": "ledger", "format": "csv", "from": "2026-03-02", "to": "2026-03-02"}})
	require.Equal(t, http.StatusForbidden, refused.Status, "%s", refused.Body)
	require.Equal(t, http.StatusForbidden, f.s.Do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + id, Key: restricted}).Status)
	allowed := f.s.Do(webtest.Request{Method: "POST", Path: "/api/v1/reports", Key: restricted,
		Body: map[string]any{"type": "payments", "format": "csv", "from": "2026-03-02", "to": "2026-03-02"}})
	require.Equal(t, http.StatusCreated, allowed.Status, "%s", allowed.Body)
	visible := f.s.Do(webtest.Request{Method: "GET", Path: "/api/v1/reports", Key: restricted}).JSON(t)["data"].([]any)
	require.Len(t, visible, 1, "a key lists the reports it may read")

	f.build()
	ready := f.s.Do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + id + "/file", Key: f.s.TestKey})
	require.Equal(t, http.StatusOK, ready.Status)
	f.at("2026-03-12", 15) // 7 days after it was ready, and a minute
	f.mu.Lock()
	f.now = f.now.Add(time.Minute)
	f.mu.Unlock()
	gone := f.s.Do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + id + "/file", Key: f.s.TestKey})
	require.Equal(t, http.StatusGone, gone.Status, "%s", gone.Body)
	require.Equal(t, "report_expired", gone.ErrorCode(t))
	dropped, err := f.s.Store.PruneReportFiles(context.Background(), 100)
	require.NoError(t, err)
	require.Equal(t, 2, dropped, "the parts of both reports built then")
	require.NoError(t, f.s.DB.NewRaw("SELECT count(*) FROM report_parts WHERE report_id = ?", id).Scan(context.Background(), &n))
	require.Zero(t, n)
}

// A description or a payer's name that a spreadsheet would run as a
// formula is written as text: in CSV with a leading apostrophe (OWASP's
// CSV injection advice), in XLSX as a typed string cell, never a formula.
func TestReportsWriteFormulasAsText(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	f.paid(1_000, map[string]any{"description": "=1+2*3",
		"customer": map[string]any{"name": "@SUM(1+1)", "email": "x@example.com", "document": "52998224725"}})
	f.paid(2_000, map[string]any{"description": "-2+3", "customer": map[string]any{"name": "+cmd|' /C calc'!A0", "email": "y@example.com", "document": "52998224725"}})
	f.paid(3_000, map[string]any{"description": "Camiseta = azul"})
	f.at("2026-03-03", 14)
	_, file := f.report("payments", "csv", "2026-03-02", "2026-03-02")
	_, rows := readCSV(t, file)
	require.Len(t, rows, 3)
	require.Equal(t, []string{"'=1+2*3", "'@SUM(1+1)"}, []string{rows[0]["description"], rows[0]["payer_name"]})
	require.Equal(t, []string{"'-2+3", "'+cmd|' /C calc'!A0"}, []string{rows[1]["description"], rows[1]["payer_name"]})
	require.Equal(t, "Camiseta = azul", rows[2]["description"], "text that starts otherwise is as typed")
	require.Equal(t, "10.00", rows[0]["amount"], "numbers stay numbers")

	_, sheet := f.report("payments", "xlsx", "2026-03-02", "2026-03-02")
	var got struct{ Rows [][]any }
	runNode(t, "read_xlsx.mjs", sheet, &got)
	title := map[string]int{}
	for i, v := range got.Rows[0] {
		title[v.(string)] = i
	}
	require.Equal(t, "=1+2*3", got.Rows[1][title["Descrição"]], "a string cell, not {formula: …}")
	require.Equal(t, "@SUM(1+1)", got.Rows[1][title["Pagador"]])
}

// The excel_br CSV, read by exceljs set as a spreadsheet in Portuguese
// (Brazil) reads one (";" between fields, a decimal comma): a BOM,
// Portuguese titles, dates as dd/mm/aaaa, and amounts whose totals are the
// API's, row by row equal to the rfc4180 CSV of the same days.
func TestReportsExcelBRCSVReadWithSemicolonsAndDecimalCommas(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	f.makeMoney()
	due := f.api("POST", "/api/v1/payments", map[string]any{"amount_cents": 123_456, "description": "Mensalidade de março",
		"due_date": "2026-03-20", "customer": map[string]any{"name": "Nova Tech Ltda", "email": "f@novatech.example", "document": "12ABC34501DE35"}},
		http.StatusCreated)
	days := map[string]any{"type": "payments", "format": "csv", "from": "2026-03-02", "to": "2026-03-05"}
	_, plain := f.reportAsked(days)
	_, want := readCSV(t, plain)
	days["csv_dialect"] = "excel_br"
	r, file := f.reportAsked(days)
	require.Equal(t, "excel_br", r["csv_dialect"])
	require.True(t, bytes.HasPrefix(file, []byte("\xef\xbb\xbfID do pagamento;Criado em;")), "a BOM, then the titles: %q", file[:min(60, len(file))])
	require.Contains(t, string(file), ";Mensalidade de março;", "UTF-8 as written")
	require.Equal(t, bytes.Count(file, []byte("\n")), bytes.Count(file, []byte("\r\n")), "CRLF lines, as Excel writes them")

	var got [][]any
	runNode(t, "read_csv_br.mjs", file, &got)
	require.Len(t, got, 1+len(want))
	title := map[string]int{}
	for i, v := range got[0] {
		title[v.(string)] = i
	}
	for _, name := range []string{"ID do pagamento", "Criado em", "Valor cobrado (R$)", "Tarifa (R$)", "Líquido (R$)", "CPF/CNPJ do pagador",
		"Expira em", "Vencimento"} {
		require.Contains(t, title, name)
	}
	require.NotContains(t, title, "Vence em", "the expiry is no due date")
	reais := func(row []any, name string) int64 {
		v, ok := row[title[name]].(float64)
		require.True(t, ok, "%s is a number with a decimal comma: %v", name, row[title[name]])
		return int64(math.Round(v * 100))
	}
	var amount, fee, net int64
	var apiAmount, apiFee, apiNet int64
	for i, row := range got[1:] {
		w := want[i]
		require.Equal(t, w["id"], row[title["ID do pagamento"]])
		created, err := time.Parse(time.RFC3339, w["created_at"])
		require.NoError(t, err)
		require.Equal(t, created.In(brasilia(t)).Format("02/01/2006 15:04:05"), row[title["Criado em"]])
		for _, col := range []string{"amount", "fee", "net", "amount_refunded"} {
			c, err := strconv.ParseInt(w[col+"_cents"], 10, 64)
			require.NoError(t, err)
			require.Equal(t, c, reais(row, map[string]string{"amount": "Valor cobrado (R$)", "fee": "Tarifa (R$)", "net": "Líquido (R$)",
				"amount_refunded": "Devolvido (R$)"}[col]), "%s of %s", col, w["id"])
		}
		amount, fee, net = amount+reais(row, "Valor cobrado (R$)"), fee+reais(row, "Tarifa (R$)"), net+reais(row, "Líquido (R$)")
		api := f.api("GET", "/api/v1/payments/"+w["id"], nil, http.StatusOK)
		apiAmount += int64(api["amount_cents"].(float64))
		apiFee += int64(api["fee_cents"].(float64))
		apiNet += int64(api["net_cents"].(float64))
		if w["id"] == due["id"] {
			require.Equal(t, "20/03/2026", row[title["Vencimento"]])
			require.Equal(t, "2026-03-20", w["due_date"])
			require.Equal(t, "12.ABC.345/01DE-35", row[title["CPF/CNPJ do pagador"]], "formatted: Excel keeps it as text")
			require.Equal(t, "Mensalidade de março", row[title["Descrição"]])
		} else {
			require.Equal(t, "", row[title["Vencimento"]])
		}
		if w["payer_document"] == "52998224725" {
			require.Equal(t, "529.982.247-25", row[title["CPF/CNPJ do pagador"]])
		}
	}
	require.Equal(t, []int64{apiAmount, apiFee, apiNet}, []int64{amount, fee, net}, "the file's totals are the API's")
	require.Equal(t, due["id"], got[len(got)-1][title["ID do pagamento"]])

	for _, bad := range []map[string]any{{"csv_dialect": "excel"}, {"csv_dialect": "excel_br", "format": "xlsx"}} {
		body := map[string]any{"type": "payments", "format": "csv", "from": "2026-03-02", "to": "2026-03-05"}
		for k, v := range bad {
			body[k] = v
		}
		e := f.api("POST", "/api/v1/reports", body, http.StatusBadRequest)["error"].(map[string]any)
		require.Equal(t, []any{"parameter_invalid", "csv_dialect"}, []any{e["code"], e["param"]}, "%v", bad)
	}
	x := f.api("POST", "/api/v1/reports", map[string]any{"type": "payments", "format": "xlsx", "from": "2026-03-02", "to": "2026-03-05"}, http.StatusCreated)
	require.Nil(t, x["csv_dialect"])
}

// A split charge's row says what went to other accounts, in all and to
// whom, as the payment's parts say.
func TestReportsShowASplitChargesParts(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	var sellers []string
	for _, name := range []string{"Padaria", "Açougue"} {
		sellers = append(sellers, f.api("POST", "/api/v1/subaccounts", map[string]any{"name": name, "document": "52998224725",
			"email": "s@example.com", "pix_key": "s@example.com"}, http.StatusCreated)["id"].(string))
	}
	p := f.api("POST", "/api/v1/payments", map[string]any{"amount_cents": 10_000, "splits": []any{
		map[string]any{"account": sellers[0], "amount_cents": 1_234}, map[string]any{"account": sellers[1], "percent": 20}}}, http.StatusCreated)
	f.api("POST", "/api/v1/test_helpers/payments/"+p["id"].(string)+"/pay", nil, http.StatusOK)
	_, file := f.report("payments", "csv", "2026-03-02", "2026-03-02")
	_, rows := readCSV(t, file)
	require.Len(t, rows, 1)
	require.Equal(t, []string{"3234", "32.34", sellers[0] + " 12,34; " + sellers[1] + " 20,00"},
		[]string{rows[0]["split_cents"], rows[0]["split"], rows[0]["splits"]})
}
